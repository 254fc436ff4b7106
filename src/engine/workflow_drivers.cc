#include "engine/workflow_drivers.h"

#include "engine/workflow_driver.h"

namespace orrery {
namespace {

constexpr int kDriversPerLook = 64;

}  // namespace

void WorkflowDriverStarter::start_missing(WorkflowEngine& store, TimeMs now, SteadyTime steady_now,
                                          const Log& log) {
  auto runs = store.workflow_runs_without_driver(now, kDriversPerLook);
  if (!runs) {
    log("cannot look for workflow runs without a driver: " + runs.error().message);
    return;
  }
  std::erase_if(started_, [&](const auto& entry) {
    return steady_now - entry.second > std::chrono::milliseconds(kDefaultEngineLeaseMs);
  });
  for (const WorkflowRun& run : *runs) {
    if (started_.count(run.id) > 0) continue;  // one started this term: let it take the lease
    started_[run.id] = steady_now;
    if (auto started = start_detached_driver(location_, run.id); !started) {
      log("cannot start a driver for workflow run " + run.id + ": " + started.error().message);
      continue;
    }
    log("started a driver for workflow run " + run.id + " (" + run.workflow_name + ")");
  }
}

}  // namespace orrery
