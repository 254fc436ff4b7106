#include "exec/run_launch.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>

#include "exec/clock.h"
#include "exec/process_identity.h"
#include "exec/supervisor.h"
#include "store/data_dir.h"
#include "store/home_layout.h"

namespace orrery {

SupervisorLaunch supervisor_launch(const StoreLocation& location, const ClaimedRun& claimed,
                                   bool detach) {
  SupervisorLaunch launch;
  launch.executable = self_executable();
  launch.global_args = {"--home", location.home};
  launch.db = location.db;
  launch.run_id = claimed.run.id;
  launch.token = claimed.claim.token;
  launch.log_path = HomeLayout(location.home).run(claimed.run.id).supervisor_log();
  launch.detach = detach;
  return launch;
}

Error fail_unstarted(Store& store, const Claim& claim, const Error& why) {
  RunOutcome outcome;
  outcome.status = RunStatus::kFailed;
  outcome.error = "the supervisor could not start: " + why.message;
  std::string message = "run " + claim.run_id + " failed: " + outcome.error;
  if (auto failed = store.finalize_run(claim, outcome, wall_clock_now()); !failed) {
    message += " (and the run could not be marked failed: " + failed.error().message + ")";
  }
  return Error{why.code, message};
}

namespace {

// The run directory and the start: one way for both starts.
Result<pid_t> start_in_run_directory(Store& store, const StoreLocation& location,
                                     const ClaimedRun& claimed,
                                     const std::function<Result<pid_t>()>& start) {
  if (auto made = prepare_data_dir(HomeLayout(location.home).run(claimed.run.id).path()); !made) {
    return fail_unstarted(store, claimed.claim, made.error());
  }
  auto started = start();
  if (!started) return fail_unstarted(store, claimed.claim, started.error());
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
  const ForkRequest request{claimed.run.id, claimed.claim.claimed_by, claimed.claim.token,
                            HomeLayout(location.home).run(claimed.run.id).path(),
                            claimed_lease_ms(claimed.run)};
  auto forked = forker.fork_supervisor(request);
  if (forked) return forked;
  if (!forker.server_gone()) return fail_unstarted(store, claimed.claim, forked.error());
  // The server died: this run's supervisor, and the next ones, are exec'd.
  auto pid = start_in_run_directory(store, location, claimed, [&] {
    return start_supervisor(supervisor_launch(location, claimed, /*detach=*/true));
  });
  if (!pid) return pid.error();
  return ForkedSupervisor{*pid, -1, process_start_time(*pid)};
}

Status start_in_run_log(const std::string& run_dir) {
  if (auto made = prepare_data_dir(run_dir); !made) return made.error();
  const std::string path = RunDirectory(run_dir).supervisor_log();
  const int log = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log < 0) return internal_error("cannot open " + path + ": " + std::strerror(errno));
  dup2(log, STDOUT_FILENO);
  dup2(log, STDERR_FILENO);
  ::close(log);
  return Ok{};
}

}  // namespace orrery
