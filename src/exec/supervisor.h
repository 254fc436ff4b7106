// The per-run supervisor (docs/execution.md): `orrery supervise RUN --token T`.
//
// It starts the target in its own process group, records the target's and
// its own identity through the store, heartbeats the run lease every
// lease/3, streams stdout and stderr into $home/runs/<run>/stdout.log and
// stderr.log (scrubbed as written), enforces the total and idle timeouts
// (SIGTERM to the group, SIGKILL 2 s later), and finalizes the run with its
// claim token: succeeded (exit 0), failed (non-zero exit, signal, or a
// target that could not start, with the reason) or timed_out. The stored
// tails keep at most 256 KiB per stream. If the claim is lost (a heartbeat
// is refused), it kills the target's group and stops without finalizing.
#pragma once

#include <string>

#include "core/result.h"
#include "store/store.h"

namespace orrery {

inline constexpr DurationMs kKillGraceMs = 2000;

struct SuperviseRequest {
  std::string home;
  std::string run_id;
  std::string token;
};

// Runs the whole life of one run; returns once the run is finalized (or the
// claim was lost, reported as a conflict).
Status supervise(Store& store, const SuperviseRequest& request);

// The directory holding a run's log files.
std::string run_directory(const std::string& home, const std::string& run_id);

}  // namespace orrery
