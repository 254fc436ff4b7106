// How the daemon stops a run that overlap `replace` ended (docs/daemon.md,
// "The tick", step 6, and "Runners"):
// - a pending run (no supervisor yet), or a run on another host (whose pids
//   mean nothing here), is cancelled through the store: at once when
//   pending, else by a cancel request its runner acts on;
// - a run whose supervisor lives gets SIGTERM to it, which cancels the run;
// - a run whose supervisor is gone has its target's process group stopped
//   (SIGTERM, SIGKILL after the grace) and recovery records it;
// - with neither a supervisor nor a group to signal, nothing is done here
//   (recovery finishes the run).
// Invariant: no pid of another host is ever signalled.
#pragma once

#include <string>

#include "core/run.h"

namespace orrery {

enum class ReplaceStop {
  kCancelInStore,     // request_cancel: cancelled now, or asked of its runner
  kSignalSupervisor,  // SIGTERM to the run's supervisor
  kStopGroup,         // SIGTERM to the target's group, SIGKILL after kKillGraceMs
  kNothing,
};

// `supervisor_alive`: the run's recorded supervisor lives (on this host).
ReplaceStop how_to_stop_replaced(const Run& run, const std::string& host, bool supervisor_alive);

}  // namespace orrery
