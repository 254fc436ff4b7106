// The secret values a run's output is scrubbed of (docs/scrubbing.md): the
// --secret-env values of the loop behind it, and the secrets orrery itself
// knows that reach its environment.
//
// Invariants: a workflow run a loop's run started has that loop's secrets,
// so its steps, its shared goal update and its files are scrubbed of them as
// the loop's own run is; a loop that is gone (its secrets file removed)
// leaves none. Reading the secrets file is the only I/O.
#pragma once

#include <string>
#include <vector>

#include "core/loop.h"
#include "core/result.h"
#include "core/scrubber.h"
#include "core/workflow.h"

namespace orrery {

// What orrery knows to be secret in `environment`, scrubbed verbatim
// whatever its entropy: the password of ORRERY_DB (either URL form, as
// written and decoded) and PGPASSWORD.
std::vector<std::string> orrery_known_secrets(const std::vector<EnvVar>& environment);

// The --secret-env values of the loop whose run started `run`; none when no
// loop did.
Result<std::vector<EnvVar>> loop_secrets_of(const std::string& home, const WorkflowRun& run);

// The scrubber of a loop's secrets and of what orrery knows in `environment`.
Result<Scrubber> loop_scrubber(const std::string& home, const std::string& loop_id,
                               const std::vector<EnvVar>& environment);

// The same for a workflow run: its loop's, when a loop's run started it.
Result<Scrubber> workflow_run_scrubber(const std::string& home, const WorkflowRun& run,
                                       const std::vector<EnvVar>& environment);

}  // namespace orrery
