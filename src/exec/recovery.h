// Recovery of runs left `running` with no supervisor behind them
// (docs/execution.md, "Recovery"), run by `orrery recover` (and the daemon):
//
// - a run whose recorded supervisor is dead (pid and start time), or that
//   recorded none and whose lease expired, is finished at once, lease or no
//   lease: with the outcome its supervisor kept in
//   <run dir>/outcome.json when there is one (same claim token), otherwise
//   `abandoned`, "the supervisor (pid N) died before the run finished";
// - a run whose lease expired is handed to the store, which abandons it
//   when its supervisor is dead and defers it while it lives;
// - a target (or what is left of its process group) that outlived its
//   supervisor is killed with SIGKILL, so nothing of a finished run runs on.
//
// Every write is guarded by the run's claim token (or an expired lease), so a
// supervisor finishing meanwhile wins and recovery changes nothing.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "store/store.h"

namespace orrery {

struct RecoveryReport {
  std::vector<Run> recorded;       // finished with the outcome their supervisor kept
  std::vector<Run> abandoned;      // no outcome: marked abandoned
  std::vector<Run> deferred;       // expired, but the supervisor lives: lease extended
  std::vector<int> killed_groups;  // process groups of targets that outlived their run
};

// Whether a running run has nothing behind it: its recorded supervisor is
// dead (pid and start time), or it never recorded one and its lease expired.
bool supervisor_gone(const Run& run, const ProcessProbe& probe, TimeMs now);

Result<RecoveryReport> recover_runs(Store& store, const ProcessProbe& probe,
                                    const std::string& home, TimeMs now,
                                    const RecoveryOptions& options, const Fence& fence);

}  // namespace orrery
