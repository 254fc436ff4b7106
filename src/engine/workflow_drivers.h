// The daemon's part in workflows (docs/workflows.md, "Recovery"): a run
// whose driver died (its engine lease expired) or that nobody started one
// for gets a new driver, `orrery drive-workflow RUN`, which resumes it. The
// daemon looks at every heartbeat and when it takes its lease.
//
// Invariant: a run is given at most one driver per engine lease term by
// this daemon; two drivers started anyway (two daemons, a race with `workflow
// run`) are harmless: only one gets the lease, the other exits.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>

#include "exec/launcher.h"
#include "store/workflow_engine.h"

namespace orrery {

class WorkflowDriverStarter {
 public:
  using Log = std::function<void(const std::string&)>;
  explicit WorkflowDriverStarter(StoreLocation location) : location_(std::move(location)) {}

  using SteadyTime = std::chrono::steady_clock::time_point;
  // Starts a driver for each run without a live one (at most 64 a call), as
  // of `now` on the wall clock and `steady_now` on the steady one.
  void start_missing(WorkflowEngine& store, TimeMs now, SteadyTime steady_now, const Log& log);

 private:
  StoreLocation location_;
  std::map<std::string, SteadyTime> started_;  // by run id
};

}  // namespace orrery
