// The environment a run's target gets (docs/execution.md): the supervisor's own
// environment, then ORRERY_RUN_ID, ORRERY_LOOP_ID, ORRERY_LOOP_NAME,
// ORRERY_SCHEDULED_FOR, ORRERY_ATTEMPT and ORRERY_HOME, then the loop's
// --env values, then its secret values (later entries win).
#pragma once

#include <string>
#include <vector>

#include "core/loop.h"
#include "core/run.h"

namespace orrery {

std::vector<EnvVar> run_environment(const std::vector<EnvVar>& inherited, const Loop& loop,
                                    const Run& run, const std::string& home,
                                    const std::vector<EnvVar>& secrets);

}  // namespace orrery
