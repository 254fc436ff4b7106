// A workflow step's supervisor (docs/workflows.md, "Running a step"):
// `orrery supervise-step DISPATCH --token-fd N`, started by the run's driver
// for one attempt, exactly as a loop run's supervisor (exec/supervisor.h):
// the same capture, scrubbing, timeouts, usage, usage limits and process
// groups, on the attempt's own claim.
//
// Before the target starts it writes the values of the steps finished so
// far to ORRERY_STEPS and gives the target an empty ORRERY_OUTPUT file;
// after, it reads that file into the attempt's outputs. Every file of a run
// is under $home/workflow-runs/<run>/ (step logs in steps/<step id>/;
// store/home_layout.h).
#pragma once

#include <string>

#include "core/result.h"
#include "exec/env.h"
#include "store/store.h"

namespace orrery {

struct StepSuperviseRequest {
  std::string home;
  std::string dispatch_id;
  std::string token;
};

// Supervises the attempt to its end; a conflict when it is not running
// under this token.
Status supervise_step(Store& store, const StepSuperviseRequest& request, Env& env = system_env());

}  // namespace orrery
