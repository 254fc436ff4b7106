#include "exec/launcher.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "exec/process_identity.h"
#include "exec/supervisor_start.h"
#include "store/data_dir.h"
#include "store/home_layout.h"

namespace orrery {
namespace {

// An exec'd process of the orrery binary in a new session: `orrery --home H
// COMMAND ID [--token-fd N]`, its output in `log_path`.
SupervisorLaunch exec_launch(const StoreLocation& location, const char* command,
                             const std::string& id, const std::string& token,
                             const std::string& log_path, bool detach) {
  SupervisorLaunch launch;
  launch.executable = self_executable();
  launch.global_args = {"--home", location.home};
  launch.db = location.db;
  launch.command = command;
  launch.run_id = id;
  launch.token = token;
  launch.log_path = log_path;
  launch.detach = detach;
  return launch;
}

}  // namespace

std::string work_directory(const std::string& home, const Claim& claim) {
  const HomeLayout layout(home);
  if (claim.kind == WorkKind::kLoopRun) return layout.run(claim.id).path();
  // A dispatch id is <run id>/<step id>/<attempt> (core/workflow.h).
  const size_t run_end = claim.id.find('/');
  const size_t step_end = claim.id.rfind('/');
  if (run_end == std::string::npos || step_end <= run_end) return layout.run(claim.id).path();
  return layout
      .step(claim.id.substr(0, run_end), claim.id.substr(run_end + 1, step_end - run_end - 1))
      .path();
}

Error fail_unstarted(ClaimLedger& ledger, const Claim& claim, const Error& why, TimeMs now) {
  RunOutcome outcome;
  outcome.status = RunStatus::kFailed;
  outcome.error = "the supervisor could not start: " + why.message;
  std::string message =
      std::string(work_kind_traits(claim.kind).noun) + " " + claim.id + " failed: " + outcome.error;
  if (auto failed = ledger.finish_claim(claim, outcome, now); !failed) {
    message += " (and it could not be marked failed: " + failed.error().message + ")";
  }
  return Error{why.code, message};
}

SupervisorLauncher::SupervisorLauncher(ClaimLedger& ledger, StoreLocation location,
                                       SupervisorForker* forker, Clock& clock)
    : ledger_(ledger), location_(std::move(location)), forker_(forker), clock_(clock) {}

Result<StartedSupervisor> SupervisorLauncher::launch(const WorkLaunch& work) {
  const Claim& claim = work.claim;
  const std::string dir = work_directory(location_.home, claim);
  if (forker_ != nullptr && !forker_->server_gone()) {
    auto forked = forker_->fork_supervisor(
        {claim.id, claim.claimed_by, claim.token, dir, work.lease_ms, claim.kind});
    if (forked) {
      // If the supervisor finished already, its claim is gone: nothing to add.
      if (work.record_forked)
        (void)ledger_.record_supervisor(claim, {forked->pid, forked->started_at},
                                        clock_.wall_now());
      return StartedSupervisor{forked->pid, forked->pidfd, forked->started_at};
    }
    if (!forker_->server_gone())
      return fail_unstarted(ledger_, claim, forked.error(), clock_.wall_now());
    // The server died: this supervisor, and the next ones, are exec'd.
  }
  return exec_supervisor(work, dir);
}

Result<StartedSupervisor> SupervisorLauncher::exec_supervisor(const WorkLaunch& work,
                                                              const std::string& dir) {
  const Claim& claim = work.claim;
  if (auto made = prepare_data_dir(dir); !made)
    return fail_unstarted(ledger_, claim, made.error(), clock_.wall_now());
  auto pid = start_supervisor(
      exec_launch(location_, work_kind_traits(claim.kind).supervisor_command, claim.id, claim.token,
                  RunDirectory(dir).supervisor_log(), work.detach));
  if (!pid) return fail_unstarted(ledger_, claim, pid.error(), clock_.wall_now());
  const StartedSupervisor started{*pid, -1, process_start_time(*pid)};
  // Recorded before the supervisor records anything itself, so that one
  // which dies at once is noticed by recovery. If the supervisor already
  // finished, the claim is gone and there is nothing to add.
  (void)ledger_.record_supervisor(claim, {started.pid, started.started_at}, clock_.wall_now());
  return started;
}

Status start_in_work_log(const std::string& dir) {
  if (auto made = prepare_data_dir(dir); !made) return made.error();
  const std::string path = RunDirectory(dir).supervisor_log();
  const int log = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log < 0) return internal_error("cannot open " + path + ": " + std::strerror(errno));
  dup2(log, STDOUT_FILENO);
  dup2(log, STDERR_FILENO);
  ::close(log);
  return Ok{};
}

Status start_detached_driver(const StoreLocation& location, const std::string& run_id) {
  const HomeLayout layout(location.home);
  if (auto made = prepare_data_dir(layout.workflow_run(run_id)); !made) return made;
  auto started = start_supervisor(
      exec_launch(location, "drive-workflow", run_id, "", layout.driver_log(run_id), true));
  if (!started) return started.error();
  return Ok{};
}

Status start_detached_queue_driver(const StoreLocation& location, const std::string& repo,
                                   const std::string& target) {
  const HomeLayout layout(location.home);
  const std::string dir = layout.worktrees() + "/queue";
  if (auto made = prepare_data_dir(dir); !made) return made;
  SupervisorLaunch launch =
      exec_launch(location, "drive-queue", repo, "", dir + "/driver.log", true);
  launch.extra_args = {"--target", target};
  auto started = start_supervisor(launch);
  if (!started) return started.error();
  return Ok{};
}

}  // namespace orrery
