// The per-run supervisor (docs/execution.md): `orrery supervise RUN
// --token-fd N`, the claim token read from an inherited descriptor, never
// from argv.
//
// It starts the target held before exec in its own process group, records
// the target's and its own identity through the store and only then lets the
// target run (if recording fails, the target never runs); keeps the claim
// (ClaimKeeper: heartbeats every lease/3, every error but a conflict
// retried within the stored lease); streams
// stdout and stderr into $home/runs/<run>/stdout.log and stderr.log
// (LogFile: scrubbed, size-limited, each attempt after the first marked);
// enforces the total and idle timeouts; stops on SIGTERM, SIGINT or SIGHUP;
// and when the target exits, stops what is left of its process group
// (SIGTERM, SIGKILL after kKillGraceMs). Every failure it can see ends the
// run with the reason: succeeded, failed, timed_out or cancelled. If the
// claim is lost (a conflict), it stops the target's group (SIGTERM, SIGKILL
// after kKillGraceMs) and returns without finalizing; if the lease runs out
// while the store fails, it stops the target the same way and the outcome
// is kept for recovery.
#pragma once

#include <string>

#include "core/result.h"
#include "exec/env.h"
#include "store/store.h"

namespace orrery {

inline constexpr DurationMs kKillGraceMs = 2000;
inline constexpr DurationMs kDrainMs = 1000;  // late output after the target exits

struct SuperviseRequest {
  std::string home;
  std::string run_id;
  std::string token;
};

// Runs the whole life of one run; returns once the run is finalized (or the
// claim was lost, reported as a conflict). Blocks SIGTERM, SIGINT and SIGHUP
// for the calling thread (they are read from a signalfd) and ignores SIGPIPE.
Status supervise(Store& store, const SuperviseRequest& request, Env& env = system_env());

// The directory holding a run's log files.
std::string run_directory(const std::string& home, const std::string& run_id);

}  // namespace orrery
