// Starting a claimed run's supervisor (docs/execution.md, "Starting a
// run"), for `orrery trigger` and the daemon: the run directory is made and
// the supervisor started in a new session, exec'd (`orrery supervise`,
// exec/supervisor_start.h) or, from the daemon, forked by its fork server
// (exec/supervisor_forker.h). A supervisor that dies before it records
// anything itself is still noticed by recovery: trigger records it at once,
// the daemon when it sees it end.
//
// Invariant: a claimed run whose supervisor cannot be started (no run
// directory, fork or exec failing) is finished `failed` with the reason at
// once; nothing is left `running` behind a supervisor that never existed.
#pragma once

#include <sys/types.h>

#include <string>

#include "core/result.h"
#include "exec/supervisor_forker.h"
#include "exec/supervisor_start.h"
#include "store/slot_claims.h"

namespace orrery {

// Where the supervisor finds the store: the data directory and the --db
// URL given to the starter (empty: the default database).
struct StoreLocation {
  std::string home;
  std::string db;
};

// The supervisor command line for a claimed run; `detach` as in
// SupervisorLaunch.
SupervisorLaunch supervisor_launch(const StoreLocation& location, const ClaimedRun& claimed,
                                   bool detach);

// Finishes a claimed run whose supervisor could not start as `failed`, with
// the reason; the Error says so (and whether the run could be marked).
Error fail_unstarted(ClaimLedger& ledger, const Claim& claim, const Error& why);

// Makes the run directory, starts the supervisor and records it on the run.
// The supervisor's pid; on failure the run is failed (fail_unstarted) and
// that error returned.
Result<pid_t> launch_run(ClaimLedger& ledger, const StoreLocation& location,
                         const ClaimedRun& claimed, bool detach);

// The daemon's way: the supervisor forked by `forker` (which makes the run
// directory itself: start_in_run_log), or exec'd when the fork server is
// gone; its pid, and a pidfd the caller owns (-1 when exec'd). Nothing is
// recorded on the run: the caller watches the supervisor and records it if
// it ends before recording itself.
Result<ForkedSupervisor> launch_forked_run(ClaimLedger& ledger, const StoreLocation& location,
                                           const ClaimedRun& claimed, SupervisorForker& forker);

// In a forked supervisor: makes the run directory `run_dir` and points
// stdout and stderr at its supervisor.log. On failure the caller fails the
// run (fail_unstarted).
Status start_in_run_log(const std::string& run_dir);

}  // namespace orrery
