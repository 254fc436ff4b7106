// What `orrery trigger` does while a run of the loop is in progress
// (docs/cli.md, "trigger"): the loop's overlap policy decides, as it does for
// a scheduled slot — skip refuses (exit 4), queue holds one queued run for
// the daemon to start when the running one ends, allow runs alongside,
// replace stops the running runs and then runs. --force runs regardless.
// Pure: the reads, signals and queueing are ops/trigger.h's, the waiting
// the face's.
//
// Invariants: with --force, under allow, or with no run in progress the
// trigger runs now; a loop holds at most one queued run, so a second is
// refused; with --wait a queued run needs a daemon to start it, so without
// one nothing is queued. Every refusal is a conflict error naming the loop
// and the run in its way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/loop.h"
#include "core/result.h"

namespace orrery {

enum class TriggerAction {
  kRunNow,   // claim and run the manual slot now
  kQueue,    // hold a queued run behind the run in progress
  kReplace,  // stop the runs in progress, then run now
};

// What is known of the loop when a trigger is decided. `queued` and
// `daemon_live` matter only to queue behind a run in progress (daemon_live
// only with --wait and nothing queued); they need not be read otherwise.
struct ManualTrigger {
  std::string loop_name;
  OverlapPolicy overlap = OverlapPolicy::kSkip;
  bool force = false;                 // --force
  bool wait = false;                  // --wait
  std::vector<std::string> running;   // ids of its runs in progress, the one queued behind first
  std::optional<std::string> queued;  // the id of its queued run, when it holds one
  bool daemon_live = false;           // a daemon holds a live lease
};

Result<TriggerAction> decide_trigger(const ManualTrigger& trigger);

}  // namespace orrery
