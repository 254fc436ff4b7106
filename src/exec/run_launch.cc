#include "exec/run_launch.h"

#include <algorithm>
#include <functional>

#include "exec/clock.h"
#include "exec/process_identity.h"
#include "exec/supervisor.h"
#include "store/data_dir.h"

namespace orrery {
namespace {

std::string supervisor_log_path(const StoreLocation& location, const ClaimedRun& claimed) {
  return run_directory(location.home, claimed.run.id) + "/supervisor.log";
}

}  // namespace

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
  launch.log_path = supervisor_log_path(location, claimed);
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

namespace {

// The run directory and the start: one way for both starts.
Result<pid_t> start_in_run_directory(Store& store, const StoreLocation& location,
                                     const ClaimedRun& claimed,
                                     const std::function<Result<pid_t>()>& start) {
  if (auto made = prepare_data_dir(run_directory(location.home, claimed.run.id)); !made) {
    return fail_unstarted(store, claimed, made.error());
  }
  auto started = start();
  if (!started) return fail_unstarted(store, claimed, started.error());
  return *started;
}

// The lease the run was claimed with (0 when the row does not say).
DurationMs claimed_lease_ms(const Run& run) {
  if (!run.lease_expires_at || !run.started_at) return 0;
  return std::max<DurationMs>(0, *run.lease_expires_at - *run.started_at);
}

}  // namespace

Result<pid_t> launch_run(Store& store, const StoreLocation& location, const ClaimedRun& claimed,
                         bool detach) {
  auto started = start_in_run_directory(store, location, claimed, [&] {
    return start_supervisor(supervisor_launch(location, claimed, detach));
  });
  if (!started) return started.error();
  // Recorded before the supervisor records anything itself, so that one which
  // dies at once is noticed by recovery. If the supervisor already finished
  // the run, the claim is gone and there is nothing to add.
  (void)store.record_supervisor(claimed.claim, {*started, process_start_time(*started)},
                                wall_clock_now());
  return *started;
}

Result<ForkedSupervisor> launch_forked_run(Store& store, const StoreLocation& location,
                                           const ClaimedRun& claimed, SupervisorForker& forker) {
  ForkRequest request{claimed.run.id, claimed.claim.token, supervisor_log_path(location, claimed),
                      claimed_lease_ms(claimed.run)};
  int pidfd = -1;
  auto pid = start_in_run_directory(store, location, claimed, [&]() -> Result<pid_t> {
    auto forked = forker.fork_supervisor(request);
    if (forked) {
      pidfd = forked->pidfd;
      return forked->pid;
    }
    if (!forker.server_gone()) return forked.error();
    // The server died: this run's supervisor, and the next ones, are exec'd.
    return start_supervisor(supervisor_launch(location, claimed, /*detach=*/true));
  });
  if (!pid) return pid.error();
  return ForkedSupervisor{*pid, pidfd};
}

}  // namespace orrery
