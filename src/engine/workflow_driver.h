// The driver of one workflow run (docs/workflows.md, "One driver per run"):
// the process that holds the run's engine lease and moves it to its end —
// `workflow run --wait` in the foreground, or `orrery workflow drive RUN`
// started by `workflow run` or by the daemon for a run left without one.
//
// Each round it reads the run and its steps, settles the attempts that
// finished, reclaims those whose supervisor died (their target's group is
// killed first), plans what comes next (core/workflow_progress.h), writes
// it all in one fenced advance, then reserves an attempt of each ready step
// and starts its supervisor (`orrery supervise-step`). It sleeps until a
// supervisor it watches exits, a stop signal comes, its lease is due for a
// heartbeat or a second passes (a cancel requested from another process).
//
// Invariants: every write carries the engine lease; a driver whose lease
// was lost stops at once and changes nothing more; a finished step never
// runs again; an attempt whose supervisor cannot start is finished failed
// at once; SIGTERM, SIGINT and SIGHUP cancel the run (the running steps'
// supervisors get SIGTERM and finish their attempts cancelled).
#pragma once

#include <functional>
#include <string>

#include "core/result.h"
#include "core/workflow.h"
#include "exec/clock.h"
#include "exec/launcher.h"  // StoreLocation
#include "exec/process_control.h"
#include "exec/supervisor_forker.h"
#include "store/store.h"

namespace orrery {

struct DriverOptions {
  StoreLocation location;  // where step supervisors find the store
  // The SQLite file (empty for a server): the driver is woken when it
  // changes (exec/store_watch.h), e.g. by a cancel asked from elsewhere.
  std::string database_path;
  DurationMs lease_ms = kDefaultEngineLeaseMs;
  DurationMs step_lease_ms = kDefaultStepLeaseMs;
  // Called after each round that wrote something (the CLI prints new events).
  std::function<void()> on_progress;
  // Forks the step supervisors (exec/supervisor_forker.h); null, or once its
  // server is gone: they are exec'd (`orrery supervise-step`).
  SupervisorForker* forker = nullptr;
  // The seams (docs/architecture.md, "Seams"); null: the machine's clock,
  // its processes, and a SupervisorLauncher over the store with `forker`.
  Clock* clock = nullptr;
  ProcessControl* processes = nullptr;
  Launcher* launcher = nullptr;
};

// The driver's claimant name: drive@HOST:PID.
std::string driver_name();

// Drives the run to its end and returns it finished. Another driver's live
// lease is a conflict naming it (the caller may follow the run instead); a
// lease lost midway is a conflict too.
Result<WorkflowRun> drive_workflow_run(Store& store, const std::string& run_id,
                                       const DriverOptions& options);

}  // namespace orrery
