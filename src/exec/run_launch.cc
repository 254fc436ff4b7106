#include "exec/run_launch.h"

#include "exec/clock.h"
#include "exec/process_identity.h"
#include "exec/supervisor.h"
#include "store/data_dir.h"

namespace orrery {

SupervisorLaunch supervisor_launch(const StoreLocation& location, const ClaimedRun& claimed,
                                   bool detach) {
  SupervisorLaunch launch;
  launch.executable = self_executable();
  launch.global_args = {"--home", location.home};
  if (!location.db.empty()) {
    launch.global_args.insert(launch.global_args.end(), {"--db", location.db});
  }
  launch.run_id = claimed.run.id;
  launch.token = claimed.claim.token;
  launch.log_path = run_directory(location.home, claimed.run.id) + "/supervisor.log";
  launch.detach = detach;
  return launch;
}

Error fail_unstarted(Store& store, const ClaimedRun& claimed, const Error& why) {
  RunOutcome outcome;
  outcome.status = RunStatus::kFailed;
  outcome.error = "the supervisor could not start: " + why.message;
  std::string message = "run " + claimed.run.id + " failed: " + outcome.error;
  if (auto failed = store.finalize_run(claimed.claim, outcome, wall_clock_now()); !failed) {
    message += " (and the run could not be marked failed: " + failed.error().message + ")";
  }
  return Error{why.code, message};
}

Result<pid_t> launch_run(Store& store, const StoreLocation& location, const ClaimedRun& claimed,
                         bool detach) {
  if (auto made = prepare_data_dir(run_directory(location.home, claimed.run.id)); !made) {
    return fail_unstarted(store, claimed, made.error());
  }
  auto started = start_supervisor(supervisor_launch(location, claimed, detach));
  if (!started) return fail_unstarted(store, claimed, started.error());
  // Recorded before the supervisor records anything itself, so that one which
  // dies at once is noticed by recovery. If the supervisor already finished
  // the run, the claim is gone and there is nothing to add.
  (void)store.record_supervisor(claimed.claim, {*started, process_start_time(*started)},
                                wall_clock_now());
  return *started;
}

}  // namespace orrery
