#include "engine/workflow_driver.h"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "core/text.h"
#include "core/workflow_progress.h"
#include "exec/clock.h"
#include "exec/command_runner.h"
#include "exec/env.h"
#include "exec/goal_handoff.h"
#include "exec/process_control.h"
#include "exec/process_identity.h"
#include "exec/recovery.h"
#include "exec/run_files_scrub.h"
#include "exec/run_secrets.h"
#include "exec/stop_signals.h"
#include "exec/store_watch.h"
#include "exec/supervisor_start.h"
#include "exec/wake.h"
#include "exec/worker_recovery.h"
#include "store/data_dir.h"
#include "store/home_layout.h"

namespace orrery {
namespace {

using Steady = std::chrono::steady_clock;

// The longest a round waits: how often an attempt with no supervisor to
// watch is looked at (a cancel asked by another process wakes the driver
// through the store watch at once).
constexpr std::chrono::milliseconds kMaxWait{1000};

std::string host_name() { return SystemProcessProbe().host_name(); }

// A supervisor the driver waits for, through a pidfd.
struct Watched {
  int pid = 0;
  int pidfd = -1;
  bool exited = false;
};

class Driver {
 public:
  Driver(Store& store, const DriverOptions& options, EngineFence fence, Workflow workflow)
      : store_(store),
        clock_(options.clock != nullptr ? *options.clock : real_clock()),
        processes_(options.processes != nullptr ? *options.processes : system_processes()),
        options_(options),
        fence_(std::move(fence)),
        workflow_(std::move(workflow)),
        host_(processes_.host_name()),
        interval_(std::max<DurationMs>(options.lease_ms / 3, 100)),
        next_beat_(clock_.steady_now() + interval_),
        own_launcher_(store, options.location, options.forker, clock_),
        launcher_(options.launcher != nullptr ? *options.launcher : own_launcher_),
        store_watch_(options.database_path, store) {}

  ~Driver() {
    for (auto& [id, watched] : watched_) {
      if (watched.pidfd >= 0) close(watched.pidfd);
    }
  }

  Result<WorkflowRun> drive() {
    while (true) {
      auto finished = round();
      if (!finished) {
        if (finished.error().code != ErrorCode::kUnavailable) return finished.error();
        // A busy or unreachable database: try again while the lease lasts.
      } else if (*finished) {
        auto run = store_.get_workflow_run(fence_.run_id);
        if (!run) return run.error();
        if (!run->has_value()) return not_found_error("workflow run " + fence_.run_id + " is gone");
        return **run;
      }
      if (auto beat = keep_lease(); !beat) return beat.error();
      wait();
    }
  }

 private:
  // Once the run's steps are done: its goal update, read, and its files,
  // scrubbed with the run's secrets (docs/scrubbing.md, "Files under the
  // home"). Secrets that cannot be read leave no update: it is removed.
  void settle_files(const WorkflowRun& run, WorkflowAdvance& advance) {
    const HomeLayout layout(options_.location.home);
    const std::vector<EnvVar> environment = process_environment();
    auto scrubber = workflow_run_scrubber(layout.home(), run, environment);
    if (scrubber) {
      take_workflow_goal_update(system_env(), layout.workflow_run(run.id), *scrubber,
                                advance.goal_update, advance.goal_update_error);
    } else {
      advance.goal_update_error = "the update cannot be scrubbed: " + scrubber.error().message;
      ::unlink(RunDirectory(layout.workflow_run(run.id)).goal_update(1).c_str());
      scrubber = Scrubber(orrery_known_secrets(environment));
    }
    auto scrubbed = scrub_workflow_run_files(system_env(), layout, run.id, *scrubber);
    if (!scrubbed && advance.error.empty()) advance.error = scrubbed.error().message;
  }

  // One round; true once the run is finished.
  Result<bool> round() {
    auto run = store_.get_workflow_run(fence_.run_id);
    if (!run) return run.error();
    if (!run->has_value()) return not_found_error("workflow run " + fence_.run_id + " is gone");
    if (is_finished((*run)->status)) return true;
    const bool cancel = (*run)->cancel_requested || cancel_;
    auto steps = store_.list_step_runs(fence_.run_id);
    if (!steps) return steps.error();
    const TimeMs now = clock_.wall_now();
    WorkflowAdvance advance;
    std::vector<StepAttempt> orphans;  // running attempts whose supervisor is gone
    std::vector<StepDecision> settled;
    for (const StepRun& step : *steps) {
      if (step.status != StepStatus::kRunning) continue;
      auto attempt = store_.get_step_attempt(step.dispatch_id);
      if (!attempt) return attempt.error();
      // A running step always has its attempt (one transaction writes both).
      if (!attempt->has_value()) continue;
      const StepAttempt& current = **attempt;
      if (current.status != RunStatus::kRunning) {
        auto settlement = settle_attempt(step, current, cancel, now);
        if (!settlement) return settlement.error();
        settled.push_back(settlement->change);
        advance.events.push_back(settlement->event);
        unwatch(current.dispatch_id);
      } else if (holder_gone(current)) {
        orphans.push_back(current);
      } else if (cancel) {
        stop(current);
      }
    }
    apply_decisions(*steps, settled);
    auto progress = plan_progress(workflow_.spec, *steps, (*run)->max_parallel, cancel, now);
    if (!progress) return progress.error();
    advance.steps = settled;
    advance.steps.insert(advance.steps.end(), progress->changes.begin(), progress->changes.end());
    advance.events.insert(advance.events.end(), progress->events.begin(), progress->events.end());
    if (progress->finish) {
      advance.finish = progress->finish;
      advance.error = progress->error;
      settle_files(**run, advance);
    }
    if (!advance.steps.empty() || !advance.events.empty() || advance.finish) {
      if (auto written = store_.advance_workflow_run(fence_, advance, now); !written)
        return written.error();
      if (options_.on_progress) options_.on_progress();
    }
    if (advance.finish) return true;
    for (const StepAttempt& orphan : orphans) {
      if (!cancel && uses_worktree(spec_step(orphan.step_id).worktree)) {
        auto allowed = worker_lets_go(orphan, now);
        if (!allowed) return allowed.error();
        if (!*allowed) continue;  // its worker waits on hold for a person
      }
      if (auto reclaimed = reclaim(orphan, cancel); !reclaimed) return reclaimed.error();
    }
    auto cooling = cooling_accounts(progress->ready, now);
    if (!cooling) return cooling.error();
    for (const std::string& step_id : progress->ready) {
      if (cooling->count(step_account(spec_step(step_id))) > 0) continue;  // waits it out
      if (auto started = start_step(*steps, step_id); !started) return started.error();
    }
    return false;
  }

  const WorkflowStep& spec_step(const std::string& step_id) const {
    for (const WorkflowStep& step : workflow_.spec.steps) {
      if (step.id == step_id) return step;
    }
    return workflow_.spec.steps.front();  // plan_progress only names steps of the spec
  }

  // The accounts of agent steps about to start that are cooling down after
  // a usage limit: their steps wait, as loop runs do (docs/execution.md).
  Result<std::set<std::string>> cooling_accounts(const std::vector<std::string>& ready,
                                                 TimeMs now) {
    std::set<std::string> accounts;
    const bool any_agent = std::any_of(ready.begin(), ready.end(), [&](const std::string& id) {
      return !step_account(spec_step(id)).empty();
    });
    if (!any_agent) return accounts;
    auto cooldowns = store_.active_cooldowns(now);
    if (!cooldowns) return cooldowns.error();
    for (const Cooldown& cooldown : *cooldowns) accounts.insert(cooldown.account);
    return accounts;
  }

  // Whether a step in a worktree whose attempt's supervisor died may run
  // again (docs/workers.md, "Leases and hold"): not while its worker is held
  // — stranded workers are put on hold first — until `worker resume` leases
  // it for the next attempt.
  Result<bool> worker_lets_go(const StepAttempt& orphan, TimeMs now) {
    auto found = store_.find_worker(orphan.run_id, orphan.step_id);
    if (!found) return found.error();
    if (!found->has_value()) return true;  // it died before it made one
    // Nothing of the dead attempt goes on changing the worktree a person
    // is to inspect.
    if (on_this_host(orphan)) (void)kill_leftover_group(orphan.pgid, orphan.target, processes_);
    auto worker = hold_if_stranded(store_, processes_, **found, now);
    if (!worker) return worker.error();
    switch (worker->state) {
      case WorkerState::kLeased:
        return worker->lease_owner.rfind(kResumeOwnerPrefix, 0) == 0;
      case WorkerState::kStarting:
      case WorkerState::kRunning:
      case WorkerState::kHold:
        return false;
      default:
        return true;
    }
  }

  bool on_this_host(const StepAttempt& attempt) const {
    return attempt.host.empty() || attempt.host == host_;
  }

  // Whether the attempt's supervisor is known to be gone: one this driver
  // watched has exited, or the recorded one (pid and start time, on this
  // host) is dead. One never recorded, or on another host, is left to its
  // lease: reserving says busy until it expires.
  bool holder_gone(const StepAttempt& attempt) {
    auto found = watched_.find(attempt.dispatch_id);
    if (found != watched_.end()) return found->second.exited;
    if (!attempt.supervisor) return true;  // reserve answers busy while its lease lives
    if (!on_this_host(attempt)) return true;
    if (!processes_.is_alive(*attempt.supervisor)) return true;
    watch(attempt.dispatch_id, attempt.supervisor->pid);  // a driver before this one started it
    return false;
  }

  void watch(const std::string& dispatch, int pid) {
    Watched watched{pid, int(syscall(SYS_pidfd_open, pid, 0)), false};
    if (watched.pidfd < 0) watched.exited = true;  // gone already
    watched_[dispatch] = watched;
  }

  void unwatch(const std::string& dispatch) {
    auto found = watched_.find(dispatch);
    if (found == watched_.end()) return;
    if (found->second.pidfd >= 0) close(found->second.pidfd);
    watched_.erase(found);
  }

  // A cancel: the step's supervisor gets SIGTERM (once) and finishes its
  // attempt cancelled.
  void stop(const StepAttempt& attempt) {
    if (!stopped_.insert(attempt.dispatch_id).second) return;
    if (attempt.supervisor && on_this_host(attempt) && processes_.is_alive(*attempt.supervisor))
      processes_.send_signal(attempt.supervisor->pid, SIGTERM);
  }

  // A new attempt for a step whose supervisor died; its target's group is
  // killed first, so two attempts never run at once.
  Status reclaim(const StepAttempt& orphan, bool cancel) {
    const bool known_dead =
        watched_.count(orphan.dispatch_id) > 0 || (orphan.supervisor && on_this_host(orphan));
    if (on_this_host(orphan)) (void)kill_leftover_group(orphan.pgid, orphan.target, processes_);
    unwatch(orphan.dispatch_id);
    StepReserve request = reserve_request(orphan.step_id, orphan.attempt + 1);
    request.holder_dead = known_dead;
    auto reservation = store_.reserve_step_attempt(fence_, request, clock_.wall_now());
    if (!reservation) return reservation.error();
    if (reservation->answer == ReserveAnswer::kBusy) return Ok{};  // its lease still runs
    if (options_.on_progress) options_.on_progress();
    // No attempts left: the next round, at once, settles the step with the
    // abandoned attempt.
    if (reservation->answer == ReserveAnswer::kExhausted) {
      round_again_ = true;
      return Ok{};
    }
    if (cancel)
      return finish_unstarted(reservation->attempt, RunStatus::kCancelled, "the run was cancelled");
    return launch(reservation->attempt);
  }

  Status start_step(const std::vector<StepRun>& steps, const std::string& step_id) {
    auto step = std::find_if(steps.begin(), steps.end(), [&](const StepRun& candidate) {
      return candidate.step_id == step_id;
    });
    if (step == steps.end()) return internal_error("no step '" + step_id + "' in the run");
    auto reservation = store_.reserve_step_attempt(
        fence_, reserve_request(step_id, step->attempts + 1), clock_.wall_now());
    if (!reservation) return reservation.error();
    // busy: another attempt holds the step; existing: this attempt was
    // reserved before and has its supervisor (or is reclaimed when it has
    // none): never a second one.
    if (reservation->answer != ReserveAnswer::kReserved &&
        reservation->answer != ReserveAnswer::kReclaimed)
      return Ok{};
    if (options_.on_progress) options_.on_progress();
    return launch(reservation->attempt);
  }

  StepReserve reserve_request(const std::string& step_id, int attempt) const {
    StepReserve request;
    request.step_id = step_id;
    request.dispatch_id = dispatch_id(fence_.run_id, step_id, attempt);
    request.claimant = fence_.driver;
    request.host = host_;
    request.lease_ms = options_.step_lease_ms;
    return request;
  }

  // Starts the attempt's supervisor and watches it; one that cannot start
  // finishes the attempt failed at once (the next round advances the step).
  Status launch(const StepAttempt& attempt) {
    const DurationMs lease =
        attempt.lease_expires_at.value_or(attempt.started_at) - attempt.started_at;
    auto started = launcher_.launch({claim_of(attempt), lease, /*record_forked=*/true, true});
    if (!started) return Ok{};
    if (started->pidfd >= 0) {
      watched_[attempt.dispatch_id] = Watched{started->pid, started->pidfd, false};
    } else {
      watch(attempt.dispatch_id, started->pid);
    }
    return Ok{};
  }

  Status finish_unstarted(const StepAttempt& attempt, RunStatus status, const std::string& why) {
    RunOutcome outcome;
    outcome.status = status;
    outcome.error =
        status == RunStatus::kCancelled ? why : "the supervisor could not start: " + why;
    auto finished = store_.finish_claim(claim_of(attempt), outcome, clock_.wall_now());
    if (!finished && finished.error().code != ErrorCode::kConflict) return finished.error();
    return Ok{};
  }

  Status keep_lease() {
    if (clock_.steady_now() < next_beat_) return Ok{};
    auto beat = store_.heartbeat_engine_lease(fence_, options_.lease_ms, clock_.wall_now());
    if (!beat && beat.error().code == ErrorCode::kConflict) return beat.error();
    next_beat_ = clock_.steady_now() + (beat ? interval_ : std::chrono::milliseconds(100));
    return Ok{};
  }

  // Sleeps until a watched supervisor exits, a stop signal comes, the lease
  // is due or kMaxWait passes.
  void wait() {
    std::vector<pollfd> fds;
    std::vector<Watched*> owners;
    for (auto& [id, watched] : watched_) {
      if (watched.exited || watched.pidfd < 0) continue;
      fds.push_back({watched.pidfd, POLLIN, 0});
      owners.push_back(&watched);
    }
    // Where the signal and store descriptors are in `fds`, if there.
    const auto add = [&](int fd, bool wanted) -> std::optional<size_t> {
      if (fd < 0 || !wanted) return std::nullopt;
      fds.push_back({fd, POLLIN, 0});
      return fds.size() - 1;
    };
    const std::optional<size_t> signal_index = add(signals_.fd(), true);
    const auto quiet = store_watch_.quiet_left();
    const std::optional<size_t> store_index = add(store_watch_.fd(), quiet.count() == 0);
    if (std::exchange(round_again_, false)) return;  // a change not yet acted on
    if (std::any_of(watched_.begin(), watched_.end(),
                    [](const auto& entry) { return entry.second.exited; }))
      return;  // an exit not yet acted on
    const auto until_beat =
        std::chrono::duration_cast<std::chrono::milliseconds>(next_beat_ - clock_.steady_now());
    auto timeout = std::clamp(until_beat, std::chrono::milliseconds(0), kMaxWait);
    if (quiet.count() > 0) timeout = std::min(timeout, quiet);
    if (::poll(fds.data(), fds.size(), int(timeout.count())) <= 0) return;
    for (size_t i = 0; i < owners.size(); ++i) {
      if (fds[i].revents != 0) owners[i]->exited = true;
    }
    if (store_index && fds[*store_index].revents != 0) store_watch_.saw_change();
    if (signal_index && fds[*signal_index].revents != 0 && signals_.take() != 0) {
      cancel_ = true;
      (void)store_.request_workflow_cancel(fence_.run_id, clock_.wall_now());
    }
  }

  Store& store_;
  Clock& clock_;
  ProcessControl& processes_;
  const DriverOptions& options_;
  EngineFence fence_;
  Workflow workflow_;
  std::string host_;
  std::chrono::milliseconds interval_;
  Steady::time_point next_beat_;
  StopSignals signals_;
  SupervisorLauncher own_launcher_;  // unless the options give one
  Launcher& launcher_;
  StoreWatch store_watch_;
  std::map<std::string, Watched> watched_;  // by dispatch id
  std::set<std::string> stopped_;           // dispatch ids sent SIGTERM
  bool cancel_ = false;
  bool round_again_ = false;  // a round changed what the next one reads
};

}  // namespace

std::string driver_name() { return "drive@" + host_name() + ":" + std::to_string(getpid()); }

Result<WorkflowRun> drive_workflow_run(Store& store, const std::string& run_id,
                                       const DriverOptions& options) {
  Clock& clock = options.clock != nullptr ? *options.clock : real_clock();
  auto run = store.get_workflow_run(run_id);
  if (!run) return run.error();
  if (!run->has_value()) return not_found_error("no workflow run has the id '" + run_id + "'");
  if (is_finished((*run)->status)) return **run;
  auto workflow = store.get_workflow((*run)->workflow_id);
  if (!workflow) return workflow.error();
  if (!workflow->has_value()) return not_found_error("the workflow of run " + run_id + " is gone");
  auto fence =
      store.acquire_engine_lease(run_id, driver_name(), options.lease_ms, clock.wall_now());
  if (!fence) {
    if (fence.error().code == ErrorCode::kConflict) {  // finished meanwhile
      auto after = store.get_workflow_run(run_id);
      if (after && after->has_value()) return **after;
    }
    return fence.error();
  }
  if (!fence->has_value()) {
    auto holder = store.get_workflow_run(run_id);
    const std::string who = holder && holder->has_value() ? (*holder)->driver : "another driver";
    return conflict_error("workflow run " + run_id + " is driven by " + who);
  }
  // A run whose loop run has ended (its supervisor died, recovery abandoned
  // it) is not resumed but cancelled: the loop's retry starts a new one.
  if (!(*run)->loop_run_id.empty()) {
    auto loop_run = store.get_run((*run)->loop_run_id);
    if (loop_run && (!loop_run->has_value() || is_terminal((*loop_run)->status)))
      (void)store.request_workflow_cancel(run_id, clock.wall_now());
  }
  // A driver before this one stopped without finishing the run: say so.
  if (!(*run)->driver.empty()) {
    WorkflowAdvance resumed;
    resumed.events.push_back(
        {"recovered", "", "{\"previous_driver\":" + json_quote((*run)->driver) + "}"});
    if (auto written = store.advance_workflow_run(**fence, resumed, clock.wall_now()); !written)
      return written.error();
  }
  Driver driver(store, options, **fence, **workflow);
  auto driven = driver.drive();
  // The run of a work item ended: the daemon settles the item and admits
  // the next (docs/admission.md).
  if (driven && is_finished(driven->status) && !driven->item_id.empty()) {
    notify_daemon(options.location.home);
  }
  return driven;
}

}  // namespace orrery
