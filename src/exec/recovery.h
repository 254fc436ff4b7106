// Recovery of runs left `running` with no supervisor behind them
// (docs/execution.md, "Recovery"), run by `orrery recover` (and the daemon):
//
// - a run whose recorded supervisor is dead (pid and start time), or that
//   recorded none and whose lease expired or was claimed more than
//   kSupervisorStartGraceMs ago, is finished at once, lease or no lease: with the outcome its
//   supervisor kept in <run dir>/outcome.json when there is one (same claim token), otherwise
//   `abandoned`, "the supervisor (pid N) died before the run finished";
// - a run whose lease expired is handed to the store, which abandons it
//   when its supervisor is dead and defers it while it lives;
// - a target (or what is left of its process group) that outlived its
//   supervisor is killed with SIGKILL, so nothing of a finished run runs on.
//
// A run that cannot be recovered (its outcome.json unreadable or damaged,
// a store error on that run) is reported in `problems` and left as it is;
// the other runs are recovered all the same. Every running run is looked
// at, however many there are (read page by page).
//
// Every write is guarded by the run's claim token (or an expired lease), so a
// supervisor finishing meanwhile wins and recovery changes nothing.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "exec/process_control.h"
#include "store/store.h"

namespace orrery {

struct RecoveryProblem {
  std::string run_id;
  std::string message;
};

struct RecoveryReport {
  std::vector<Run> recorded;              // finished with the outcome their supervisor kept
  std::vector<Run> abandoned;             // no outcome: marked abandoned
  std::vector<Run> deferred;              // expired, but the supervisor lives: lease extended
  std::vector<int> killed_groups;         // process groups of targets that outlived their run
  std::vector<RecoveryProblem> problems;  // runs left as they were, and why
};

// A claimed run whose supervisor has not recorded itself this long after the
// claim has none coming: its claimant (a daemon killed between its plan
// commit and the supervisor's start, a killed `trigger`) is gone.
inline constexpr DurationMs kSupervisorStartGraceMs = 30'000;

// Kills with SIGKILL what is left of a target whose supervisor is gone: the
// recorded target itself (pid and start time match), or its group when the
// group lives on without its leader (a group id is only ever created by a
// process of that pid, and a pid is not reused while its group lives, so a
// group without a living leader is the target's own). `probe` tells which
// processes live; the signals go through `signals`. True when killed.
bool kill_leftover_group(std::optional<int> pgid, const std::optional<ProcessIdentity>& target,
                         const ProcessProbe& probe, ProcessControl& signals);
// The same with the machine's signals (kill(2)).
bool kill_leftover_group(std::optional<int> pgid, const std::optional<ProcessIdentity>& target,
                         const ProcessProbe& probe);

// Whether a running run has nothing behind it: its recorded supervisor is
// dead (pid and start time), or it never recorded one and its lease expired
// or kSupervisorStartGraceMs passed since it was claimed.
bool supervisor_gone(const Run& run, const ProcessProbe& probe, TimeMs now);

inline constexpr int kRecoveryPage = 1000;  // running runs read per query

// Recovers every running run (the rules above), asking `processes` which
// processes live and signalling through it.
Result<RecoveryReport> recover_runs(Store& store, ProcessControl& processes,
                                    const std::string& home, TimeMs now,
                                    const RecoveryOptions& options, const Fence& fence);
// The same with `probe` for which processes live and the machine's signals.
Result<RecoveryReport> recover_runs(Store& store, const ProcessProbe& probe,
                                    const std::string& home, TimeMs now,
                                    const RecoveryOptions& options, const Fence& fence);

}  // namespace orrery
