#include "engine/daemon.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/duration.h"
#include "engine/admitting.h"
#include "engine/daemon_deadline.h"
#include "engine/daemon_lease.h"
#include "engine/event_loop.h"
#include "engine/feeding.h"
#include "engine/lease_failure.h"
#include "engine/notice_watch.h"
#include "engine/queue_drivers.h"
#include "engine/replace_stop.h"
#include "engine/sd_notify.h"
#include "engine/suspend_detector.h"
#include "engine/worker_release.h"
#include "engine/workflow_drivers.h"
#include "exec/command_runner.h"
#include "exec/git.h"
#include "exec/process_identity.h"
#include "exec/supervisor.h"
#include "exec/wake.h"
#include "store/sqlite/database_files.h"

namespace orrery {
namespace {

constexpr DurationMs kConflictRetryMs = 100;  // a plan or settle that conflicted

std::chrono::milliseconds ms(DurationMs value) { return std::chrono::milliseconds(value); }

// The soft limit on open descriptors raised to the hard one (often 1024 of
// 524288): the daemon holds a pidfd per supervisor it watches.
void raise_descriptor_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
}

// The lease the run was claimed with (0 when the row does not say).
DurationMs claimed_lease_ms(const Run& run) {
  if (!run.lease_expires_at || !run.started_at) return 0;
  return std::max<DurationMs>(0, *run.lease_expires_at - *run.started_at);
}

// A supervisor the daemon started, for the run it supervises.
struct Launched {
  std::string run_id;
  Claim claim;
  ProcessIdentity supervisor;
};

class Daemon {
 public:
  Daemon(Store& store, const DaemonOptions& options, DaemonLog& log, const DaemonSystem& system)
      : store_(store),
        options_(options),
        log_(log),
        clock_(system.clock),
        processes_(system.processes),
        events_(system.events),
        launcher_(system.launcher),
        self_(system.self),
        detector_(read_clock_pair()),
        watchdog_(watchdog_interval()) {}

  Result<DaemonResult> run() {
    if (auto started = start(); !started) return started.error();
    Status ended = options_.once ? run_once() : run_forever();
    finish(ended);
    if (!ended) return ended.error();
    return result_;
  }

 private:
  TimeMs now() const { return clock_.wall_now(); }
  SteadyTime steady_in(DurationMs delay) const { return clock_.steady_now() + ms(delay); }
  bool passed(SteadyTime when) const { return clock_.steady_now() >= when; }
  DurationMs heartbeat_ms() const { return heartbeat_interval(options_.lease_ttl_ms); }

  // The lease, the wake-up socket, READY=1.
  Status start() {
    const TimeMs started = now();
    if (!options_.database_path.empty()) {
      database_files_.emplace(options_.database_path);
      database_files_->remember();
    }
    settings_.location = options_.location;
    settings_.claimant = "daemon@" + processes_.host_name() + ":" + std::to_string(self_.pid);
    settings_.max_running = options_.max_running;
    settings_.to_runners = options_.shared_database;
    runner_labels_ =
        options_.labels.empty() ? "host=" + processes_.host_name() : labels_text(options_.labels);
    auto lease = first_lease();
    if (lease) {
      take_lease(*lease, "taken");
    } else if (options_.shared_database && !options_.once &&
               lease.error().code == ErrorCode::kConflict) {
      scheduling_ = false;
      timers_.lease_check = steady_in(heartbeat_ms());
      log(lease.error().message + "; running as a runner (labels " + runner_labels_ +
          ") until the lease is free");
    } else {
      return lease.error();
    }
    register_as_runner(started);
    watching_since_ = options_.once ? options_.started_at : started;
    timers_.heartbeat = steady_in(heartbeat_ms());
    if (options_.shared_database) notices_.refresh();
    if (!options_.once) listen_and_announce();
    return Ok{};
  }

  // The lease as of start, retried while the database is unavailable for
  // start_patience_ms (docs/daemon.md, "The lease"); a signal meanwhile
  // stops the daemon with the last error.
  Result<DaemonLease> first_lease() {
    const SteadyTime give_up = steady_in(options_.start_patience_ms);
    StoreBackoff backoff;
    while (true) {
      auto lease = acquire_lease(store_, self_, options_.lease_ttl_ms, now());
      if (lease || lease.error().code != ErrorCode::kUnavailable || passed(give_up)) return lease;
      const DurationMs left =
          std::chrono::duration_cast<std::chrono::milliseconds>(give_up - clock_.steady_now())
              .count();
      const DurationMs delay = std::min(backoff.next(), left);
      log("the lease could not be taken (" + lease.error().message + "); retrying in " +
          format_duration(delay));
      auto events = events_.wait(now() + delay);
      if (!events) return events.error();
      handle(*events);
      if (stopping_) return lease;
    }
  }

  // The wake-up socket, READY=1 and the first watchdog ping (not --once).
  void listen_and_announce() {
    auto listener = WakeListener::listen(options_.location.home);
    if (listener) {
      listener_.emplace(std::move(*listener));
      if (auto watched = events_.watch_readable(listener_->fd()); !watched) {
        log("wake-ups are off: " + watched.error().message);
      }
    } else {
      log("wake-ups are off (" + listener.error().message +
          "); changes are seen at the next heartbeat or due slot");
    }
    sd_notify("READY=1\nSTATUS=running loops\nMAINPID=" + std::to_string(getpid()));
    log("ready: running loops (max " + std::to_string(options_.max_running) +
        " at once; wake-ups on " + wake_socket_path(options_.location.home) + ")");
    if (watchdog_) timers_.watchdog = clock_.steady_now();
  }

  // The lease is this daemon's: it schedules from now on.
  void take_lease(const DaemonLease& lease, const std::string& how) {
    lease_ = lease;
    settings_.fence = Fence{lease_.lease_id};
    scheduling_ = true;
    recover_ = true;
    expire_ = true;
    release_due_ = true;
    log("lease " + lease_.lease_id + " " + how + " (generation " +
        std::to_string(lease_.generation) + ", ttl " + format_duration(options_.lease_ttl_ms) +
        ", pid " + std::to_string(self_.pid) + ")");
    start_workflow_drivers();
    queues_due_ = true;
  }

  // This daemon's row among the runners (docs/daemon.md, "Runners"): what
  // `status` lists. Best effort: a failure is logged, the daemon goes on.
  void register_as_runner(TimeMs at) {
    RunnerRecord runner;
    runner.id = settings_.claimant;
    runner.host = processes_.host_name();
    runner.labels = runner_labels_;
    runner.process = self_;
    runner.home = options_.location.home;
    runner.started_at = at;
    if (auto registered = store_.register_runner(runner, at); !registered) {
      log("could not register as a runner (" + registered.error().message + ")");
    }
  }

  void heartbeat_runner(TimeMs at) {
    auto beat = store_.heartbeat_runner(settings_.claimant, at);
    if (!beat && beat.error().code == ErrorCode::kNotFound) register_as_runner(at);
  }

  // Releases the lease unless it was lost; STOPPING=1.
  void finish(const Status& ended) {
    if (!options_.once) sd_notify("STOPPING=1");
    (void)store_.remove_runner(settings_.claimant);
    const bool lost = !ended && is_lease_lost(ended.error());
    if (lost) {
      log(ended.error().message + "; stopping at once, " + std::to_string(ours_.size()) +
          " runs continue under their supervisors");
      return;
    }
    if (!scheduling_) {
      log("stopped; " + std::to_string(ours_.size()) + " runs continue under their supervisors");
      return;
    }
    if (auto released = store_.release_daemon_lease(lease_.lease_id, now()); !released) {
      log("the lease could not be released (" + released.error().message +
          "); it expires on its own");
    } else {
      log("lease released; " + std::to_string(ours_.size()) +
          " runs continue under their supervisors");
    }
    listener_.reset();
  }

  Status run_forever() {
    while (!stopping_) {
      if (scheduling_) {
        if (auto retaken = retake_lease_after_suspend(); !retaken) return retaken;
        if (auto beat = heartbeat_if_due(); !beat) return beat;
        if (auto ticked = tick(); !ticked) return ticked;
        if (queues_due_) start_queue_drivers();
      } else {
        runner_heartbeat_if_due();
        take_lease_when_free();
      }
      serve_as_runner();
      auto events = events_.wait(next_wake());
      if (!events) return events.error();
      handle(*events);
    }
    log("stopping on a signal");
    return Ok{};
  }

  // One tick as of the start, then again after each of its runs ends (queued
  // rows of a catch-up start one after another), until none runs.
  Status run_once() {
    recover_ = true;
    while (true) {
      if (auto retaken = retake_lease_after_suspend(); !retaken) return retaken;
      if (auto beat = heartbeat_if_due(); !beat) return beat;
      if (auto ticked = tick(); !ticked) return ticked;
      serve_as_runner();
      if (ours_.empty() && !more_ && !timers_.tick_retry) break;
      auto events = events_.wait(next_wake());
      if (!events) return events.error();
      handle(*events);
      if (stopping_) {
        result_.interrupted = true;
        log("stopping on a signal before the runs ended");
        break;
      }
    }
    return Ok{};
  }

  // A suspend longer than the ttl let the lease expire while nobody could
  // use it: the daemon takes it again (a new generation) unless another
  // daemon took it meanwhile, which is a lost lease.
  Status retake_lease_after_suspend() {
    if (!suspended_) return Ok{};
    suspended_ = false;
    return retake_lease("after the suspend");
  }

  // Takes the lease again: a new generation when it ran out, unless another
  // daemon took it meanwhile, which is a lost lease. A store error is logged
  // and the heartbeat retried (a lease that ran out is taken again then).
  Status retake_lease(const std::string& when) {
    auto lease = acquire_lease(store_, self_, options_.lease_ttl_ms, now());
    if (!lease) {
      if (lease.error().code == ErrorCode::kConflict) {
        return conflict_error("daemon lease lost " + when + ": " + lease.error().message);
      }
      retry_heartbeat("the lease could not be taken again " + when + " (" + lease.error().message +
                      ")");
      return Ok{};
    }
    if (lease->lease_id != lease_.lease_id) {
      log("lease " + lease->lease_id + " taken again " + when + " (generation " +
          std::to_string(lease->generation) + ")");
    }
    lease_ = *lease;
    settings_.fence = Fence{lease_.lease_id};
    heartbeat_failing_ = false;
    heartbeat_backoff_.reset();
    heartbeat_runner(now());
    timers_.heartbeat = steady_in(heartbeat_ms());
    return Ok{};
  }

  // Logs `what` and tries the heartbeat again after the backoff, within the
  // heartbeat interval.
  void retry_heartbeat(const std::string& what) {
    heartbeat_failing_ = true;
    const DurationMs delay = std::min(heartbeat_backoff_.next(), heartbeat_ms());
    log(what + "; retrying in " + format_duration(delay));
    timers_.heartbeat = steady_in(delay);
  }

  // A file of the database removed or replaced (another inode at its path:
  // the -wal, the -shm, the directory too): the daemon would go on alone
  // with files no command or supervisor sees (store/sqlite/database_files.h).
  Status check_database_files() const {
    if (!database_files_) return Ok{};
    return database_files_->check();
  }

  // Renews the lease when due. Heartbeats that failed on store errors (a
  // full disk, an I/O error) until the lease ran out leave it to whoever
  // takes it first: this daemon takes it again unless another one did.
  Status heartbeat_if_due() {
    if (!passed(timers_.heartbeat)) return Ok{};
    admission_due_ = true;  // what no wake-up announced is planned within ttl/3
    if (auto same = check_database_files(); !same) return same;
    auto beat = store_.heartbeat_daemon_lease(lease_.lease_id, options_.lease_ttl_ms, now());
    if (!beat) {
      switch (after_store_failure(beat.error(), heartbeat_failing_)) {
        case LeaseFailure::kRetry:
          retry_heartbeat("lease heartbeat failed (" + beat.error().message + ")");
          return Ok{};
        case LeaseFailure::kRetakeLease:
          return retake_lease("after store errors");
        case LeaseFailure::kStop:
          return beat;
      }
    }
    heartbeat_failing_ = false;
    heartbeat_backoff_.reset();
    timers_.heartbeat = steady_in(heartbeat_ms());
    recover_ = true;  // a supervisor started by an earlier daemon may be gone
    expire_ = true;
    heartbeat_runner(now());
    look_for_work();
    start_workflow_drivers();
    queues_due_ = true;
    return Ok{};
  }

  // Merge queues with work get a driver (engine/queue_drivers.h).
  void start_queue_drivers() {
    queues_due_ = false;
    if (options_.once) return;
    queue_drivers_.start_missing(store_, now(), clock_.steady_now(),
                                 [this](const std::string& line) { log(line); });
  }

  // Workflow runs whose driver died get a new one (docs/workflows.md).
  void start_workflow_drivers() {
    if (options_.once) return;
    drivers_.start_missing(store_, now(), clock_.steady_now(),
                           [this](const std::string& line) { log(line); });
  }

  // The admission queue's part of a tick (engine/admitting.h); true when it
  // left work for another tick at once. `daemon --once` admits nothing.
  Result<bool> admit_work_items(TimeMs at) {
    if (options_.once) return false;
    AdmissionSettings admission;
    admission.global_max_running = options_.global_max_running;
    if (wake_.item_retry && *wake_.item_retry <= at) admission_due_ = true;
    admission.plan = admission_due_;
    admission_due_ = false;  // a wake during the step sets it again
    auto report = run_admission(
        store_, settings_, admission, at,
        [this](const std::string& run_id) {
          return start_detached_driver(options_.location, run_id);
        },
        [this](const std::string& line) { log(line); });
    if (!report) {
      admission_due_ = true;
      return report.error();
    }
    if (report->changed()) admission_due_ = true;
    if (release_due_ || report->succeeded > 0) release_superseded(at);
    return report->more;
  }

  // The held workers of items that succeeded on a later attempt
  // (engine/worker_release.h): after such a settlement, and once when the
  // lease is taken; a failure is logged, never the tick's.
  void release_superseded(TimeMs at) {
    release_due_ = false;
    Git git(system_commands(), process_environment());
    const EventSink sink = [this](const std::string& line) { log(line); };
    auto released = release_superseded_workers(store_, git, processes_.host_name(), at, sink);
    if (!released) log("releasing superseded workers: " + released.error().message);
  }

  // Feeds of this host's succeeded runs (engine/feeding.h); true when more
  // wait for another tick at once.
  Result<bool> feed_routes_of_host(TimeMs at) {
    const std::string host = processes_.host_name();
    auto report =
        feed_routes(store_, host, run_output_on_host(store_, options_.location.home, host), at,
                    [this](const std::string& line) { log(line); });
    if (!report) return report.error();
    if (report->fed > 0) admission_due_ = true;
    return report->more;
  }

  // A tick, the wake times after it, and the processes it asks for. A store
  // error other than a lost lease is logged and retried with a backoff.
  Status tick() {
    if (timers_.tick_retry && !passed(*timers_.tick_retry) && !more_) return Ok{};
    timers_.tick_retry.reset();
    more_ = false;
    const TimeMs at = now();
    TickTimes times{at, options_.once ? options_.started_at : at, watching_since_};
    if (!exited_runs_.empty()) note_unfinished_runs();
    auto report = run_tick(store_, processes_, settings_, times, {recover_, expire_},
                           [this](const std::string& line) { log(line); });
    if (!report) return after_failed_tick(report.error());
    // The runs the tick claimed start whatever the steps after it meet: a
    // failing feed or admission is retried after the backoff, and a lost
    // lease found there stops the daemon once they are started.
    std::optional<Error> later = work_item_steps(at, *report);
    recover_ = false;
    expire_ = false;
    stop_replaced(report->replaced);  // the old run stops before its replacement starts
    launch(report->claimed);
    if (report->pending > 0) claim_due_ = true;
    more_ = report->more;
    if (report->retry_soon) timers_.tick_retry = steady_in(kConflictRetryMs);
    auto wake = store_.wake_times(at);
    if (!wake) return after_failed_tick(wake.error());
    wake_ = *wake;
    if (later) return after_failed_tick(*later);
    tick_backoff_.reset();
    return Ok{};
  }

  // The feeds and the admission of a tick (engine/feeding.h,
  // engine/admitting.h), each whatever the other met; the first error.
  std::optional<Error> work_item_steps(TimeMs at, TickReport& report) {
    std::optional<Error> first;
    for (auto step : {&Daemon::feed_routes_of_host, &Daemon::admit_work_items}) {
      auto more = (this->*step)(at);
      if (more) {
        report.more = report.more || *more;
      } else if (!first) {
        first = more.error();
      }
    }
    return first;
  }

  // A tick that failed: retried after the backoff; a lost lease stops the
  // daemon, unless its heartbeats were failing (the next heartbeat, due now,
  // takes it again or finds it lost).
  Status after_failed_tick(const Error& error) {
    if (auto same = check_database_files(); !same) return same;
    const DurationMs delay = tick_backoff_.next();
    timers_.tick_retry = steady_in(delay);
    switch (after_store_failure(error, heartbeat_failing_)) {
      case LeaseFailure::kStop:
        return error;
      case LeaseFailure::kRetakeLease:
        timers_.heartbeat = clock_.steady_now();
        log("the lease ran out while its heartbeats failed; taking it again");
        return Ok{};
      case LeaseFailure::kRetry:
        break;
    }
    log("store error: " + error.message + "; retrying in " + format_duration(delay));
    return Ok{};
  }

  // A runner's heartbeat (not the lease holder): its row, then a look for
  // work a lost notice may have hidden.
  void runner_heartbeat_if_due() {
    if (!passed(timers_.heartbeat)) return;
    timers_.heartbeat = steady_in(heartbeat_ms());
    heartbeat_runner(now());
    look_for_work();
    if (auto fed = feed_routes_of_host(now()); !fed) {
      log("feeds could not be recorded (" + fed.error().message + "); trying again later");
    }
  }

  // A runner tries the lease when it may have expired: the holder that
  // stopped heartbeating (killed, cut off) is replaced within its ttl.
  void take_lease_when_free() {
    if (!passed(timers_.lease_check)) return;
    const DurationMs interval = heartbeat_ms();
    timers_.lease_check = steady_in(interval);
    auto lease = acquire_lease(store_, self_, options_.lease_ttl_ms, now());
    if (lease) {
      take_lease(*lease, "taken over");
      watching_since_ = now();
      timers_.heartbeat = steady_in(interval);
      return;
    }
    if (lease.error().code != ErrorCode::kConflict) {
      log("the lease could not be checked (" + lease.error().message + ")");
      return;
    }
    // Held: look again just after it would expire, if that is sooner.
    auto holder = store_.get_daemon_lease();
    if (!holder || !holder->has_value()) return;
    timers_.lease_check = steady_in(lease_check_delay(interval, (*holder)->expires_at, now()));
  }

  // On a shared database: notices read, pending runs claimed and cancel
  // requests acted on, each only when something may have changed.
  void serve_as_runner() {
    if (!options_.shared_database) return;
    if (notices_.take()) look_for_work();
    if (claim_due_) claim_pending_runs();
    if (cancels_due_) act_on_cancel_requests();
  }

  void look_for_work() {
    if (!options_.shared_database) return;
    claim_due_ = true;
    cancels_due_ = true;
    notices_.refresh();
  }

  // Claims pending runs this runner's labels allow, up to its free room.
  void claim_pending_runs() {
    if (timers_.claim_retry && !passed(*timers_.claim_retry)) return;
    timers_.claim_retry.reset();
    claim_due_ = false;
    const int room = options_.max_running - int(ours_.size());
    if (room <= 0) return;
    auto claimed = store_.claim_pending(settings_.claimant, runner_labels_, room, now());
    if (!claimed) {
      const DurationMs delay = claim_backoff_.next();
      timers_.claim_retry = steady_in(delay);
      claim_due_ = true;
      log("pending runs could not be claimed (" + claimed.error().message + "); retrying in " +
          format_duration(delay));
      return;
    }
    claim_backoff_.reset();
    if (int(claimed->size()) == room) claim_due_ = true;  // more may wait for room
    launch(*claimed);
  }

  // Runs of this runner that a command on another host asked to stop.
  void act_on_cancel_requests() {
    cancels_due_ = false;
    auto runs = store_.running_cancel_requests(settings_.claimant);
    if (!runs) {
      log("cancel requests could not be read (" + runs.error().message + ")");
      return;
    }
    for (const Run& run : *runs) {
      if (cancelled_.count(run.id) > 0) continue;  // signalled already
      const std::optional<pid_t> supervisor = supervisor_of(run);
      if (!supervisor) continue;  // none alive: recovery ends the run
      cancelled_.insert(run.id);
      processes_.send_signal(*supervisor, SIGTERM);
      log("run " + run.id + " of loop " + run.loop_name + " cancelled on request (supervisor pid " +
          std::to_string(*supervisor) + ")");
    }
  }

  // The live supervisor of one of this daemon's runs, if any.
  std::optional<pid_t> supervisor_of(const Run& run) const {
    for (const auto& [pid, launched] : ours_) {
      if (launched.run_id == run.id) return pid;
    }
    if (run.supervisor && runs_on_host(run, processes_.host_name()) &&
        processes_.is_alive(*run.supervisor)) {
      return run.supervisor->pid;
    }
    return std::nullopt;
  }

  // A supervisor that exited leaving its run `running` died: it is recorded
  // on the run if it never recorded itself, and recovery finishes the run at
  // once (one read per exit, not a scan of every run).
  void note_unfinished_runs() {
    for (const Launched& launched : exited_runs_) {
      auto run = store_.get_run(launched.run_id);
      if (run && (!run->has_value() || (*run)->status != RunStatus::kRunning)) continue;
      if (run && !(*run)->supervisor && launched.supervisor.started_at) {
        (void)store_.record_supervisor(launched.claim, launched.supervisor, now());
      }
      recover_ = true;
    }
    exited_runs_.clear();
  }

  void launch(std::vector<ClaimedRun>& claimed) {
    for (const ClaimedRun& run : claimed) {
      auto started = start_supervisor_of(run);
      if (options_.once) result_.started.push_back(run.run.id);
      if (!started) {
        log(started.error().message);
        continue;
      }
      const pid_t pid = started->pid;
      ours_.emplace(pid, Launched{run.run.id, run.claim, {pid, started->started_at}});
      if (started->pidfd >= 0) {
        events_.watch_process(pid, started->pidfd);
      } else {
        events_.watch_process(pid);
      }
      log("run " + run.run.id + " of loop " + run.run.loop_name + " started (slot " +
          format_time(run.run.scheduled_for) + ", attempt " + std::to_string(run.run.attempt) +
          ", supervisor pid " + std::to_string(pid) + ")");
    }
  }

  // Forked by the fork server while it lives, else exec'd. A forked
  // supervisor records itself; the daemon records it only if it dies first
  // (note_unfinished_runs), so a start costs no write.
  Result<StartedSupervisor> start_supervisor_of(const ClaimedRun& run) {
    const bool had_server = options_.forker != nullptr && !options_.forker->server_gone();
    auto started = launcher_.launch({run.claim, claimed_lease_ms(run.run), false, true});
    if (had_server && options_.forker->server_gone()) {
      log("the supervisor fork server is gone; supervisors are exec'd from now on");
    }
    return started;
  }

  // Overlap `replace` (engine/replace_stop.h).
  void stop_replaced(const std::vector<Run>& runs) {
    const std::string host = processes_.host_name();
    for (const Run& run : runs) {
      // Another host's pids are never probed (core/run.h, runs_on_host).
      const bool alive =
          run.supervisor && runs_on_host(run, host) && processes_.is_alive(*run.supervisor);
      switch (how_to_stop_replaced(run, host, alive)) {
        case ReplaceStop::kCancelInStore:
          request_cancel_of(run, "replaced by a newer slot (overlap replace)");
          break;
        case ReplaceStop::kSignalSupervisor:
          processes_.send_signal(run.supervisor->pid, SIGTERM);
          log("run " + run.id + " of loop " + run.loop_name +
              " replaced: cancelling it (supervisor pid " + std::to_string(run.supervisor->pid) +
              ")");
          break;
        case ReplaceStop::kStopGroup:
          stop_group_of(run);
          break;
        case ReplaceStop::kNothing:
          break;
      }
    }
  }

  // SIGTERM to the group of a replaced run whose supervisor is gone, SIGKILL
  // after the grace; recovery records the run.
  void stop_group_of(const Run& run) {
    if (!processes_.send_signal(-*run.pgid, SIGTERM)) return;
    timers_.kills.push_back({*run.pgid, steady_in(kKillGraceMs)});
    log("run " + run.id + " of loop " + run.loop_name +
        " replaced: its supervisor is gone; stopping process group " + std::to_string(*run.pgid));
    recover_ = true;
  }

  void request_cancel_of(const Run& run, const std::string& reason) {
    auto status = store_.request_cancel(run.id, reason, now());
    if (!status) {
      log("run " + run.id + " of loop " + run.loop_name + " could not be cancelled (" +
          status.error().message + ")");
    } else if (*status == RunStatus::kCancelled) {
      log("run " + run.id + " of loop " + run.loop_name + " replaced before it started: cancelled");
    } else if (*status == RunStatus::kRunning) {
      log("run " + run.id + " of loop " + run.loop_name + " replaced: asked its runner on " +
          run.host + " to cancel it");
    }
  }

  void kill_overdue_groups() {
    auto& kills = timers_.kills;
    for (auto it = kills.begin(); it != kills.end();) {
      if (!passed(it->at)) {
        ++it;
        continue;
      }
      processes_.send_signal(-it->pgid, SIGKILL);
      it = kills.erase(it);
    }
  }

  // The earliest wall-clock instant the daemon must look again
  // (engine/daemon_deadline.h).
  std::optional<TimeMs> next_wake() const {
    const WakeState state{more_, options_.shared_database && claim_due_, scheduling_, options_.once,
                          wake_};
    return next_deadline(timers_, state, {now(), clock_.steady_now()});
  }

  void handle(const LoopEvents& events) {
    for (int signal : events.signals) {
      if (signal == SIGTERM || signal == SIGINT) stopping_ = true;
      if (signal == SIGHUP) reopen_log();
      if (signal == SIGCHLD) reap_children();
    }
    for (int fd : events.readable_fds) {
      if (listener_ && fd == listener_->fd()) listener_->drain();
      notices_.readable(fd);
      admission_due_ = true;  // a command or another process changed something
      queues_due_ = true;
    }
    for (pid_t pid : events.exited) note_exit(pid);
    if (events.clock_stepped) log("the wall clock was set; looking again");
    if (const DurationMs slept = detector_.slept(read_clock_pair()); slept > 0) {
      watching_since_ = now();
      suspended_ = true;
      log("the machine was suspended for " + format_duration(slept) +
          "; slots that fell due meanwhile are missed");
    }
    if (watchdog_ && timers_.watchdog && passed(*timers_.watchdog)) {
      sd_notify("WATCHDOG=1");
      timers_.watchdog = steady_in(*watchdog_);
    }
    kill_overdue_groups();
    if (wake_.lease_expiry && *wake_.lease_expiry <= now()) recover_ = true;
  }

  // A supervisor this daemon started exited: its run is looked at next tick.
  void note_exit(pid_t pid) {
    const auto found = ours_.find(pid);
    if (found == ours_.end()) return;
    cancelled_.erase(found->second.run_id);
    exited_runs_.push_back(found->second);
    ours_.erase(found);
    claim_due_ = options_.shared_database;  // room for another pending run
  }

  void reopen_log() {
    if (auto reopened = log_.reopen(); !reopened) {
      log("the log could not be reopened: " + reopened.error().message);
    } else {
      log("log reopened");
    }
  }

  static void reap_children() {
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
  }

  void log(const std::string& line) { log_.write(now(), line); }

  Store& store_;
  const DaemonOptions& options_;
  DaemonLog& log_;
  Clock& clock_;
  ProcessControl& processes_;
  Events& events_;
  Launcher& launcher_;
  const ProcessIdentity self_;
  SuspendDetector detector_;
  std::optional<DurationMs> watchdog_;
  std::optional<WakeListener> listener_;
  DaemonLease lease_;
  TickSettings settings_;
  TimeMs watching_since_ = 0;
  DaemonTimers timers_;
  StoreBackoff heartbeat_backoff_;
  StoreBackoff tick_backoff_;
  WakeTimes wake_;
  // The admission queue may have changed since it was last planned: a
  // wake-up, a notice, a heartbeat, a retry falling due, or the last
  // admission step's own changes (engine/admitting.h).
  bool admission_due_ = true;
  bool recover_ = true;
  bool release_due_ = true;  // superseded held workers to look for
  bool expire_ = true;
  bool more_ = false;
  bool stopping_ = false;
  bool suspended_ = false;
  std::optional<sqlite::DatabaseFiles> database_files_;  // as they were at the start
  bool heartbeat_failing_ = false;            // the last heartbeat failed on a store error
  std::unordered_map<pid_t, Launched> ours_;  // by supervisor pid
  std::vector<Launched> exited_runs_;         // whose supervisor exited
  DaemonResult result_;
  WorkflowDriverStarter drivers_{options_.location};
  QueueDriverStarter queue_drivers_{options_.location};
  bool queues_due_ = true;

  // Runners (docs/daemon.md, "Runners"): on a shared database only.
  bool scheduling_ = true;     // holds the lease; else a runner only
  std::string runner_labels_;  // the stored form, host= included
  NoticeWatch notices_{store_, events_, [this](const std::string& line) { log(line); }};
  bool claim_due_ = true;
  bool cancels_due_ = true;
  StoreBackoff claim_backoff_;
  std::unordered_set<std::string> cancelled_;  // runs whose supervisor was asked to stop
};

}  // namespace

Result<DaemonResult> run_daemon(Store& store, const DaemonOptions& options, DaemonLog& log,
                                const DaemonSystem& system) {
  Daemon daemon(store, options, log, system);
  return daemon.run();
}

Result<DaemonResult> run_daemon(Store& store, const DaemonOptions& options, DaemonLog& log) {
  // A log reader that went away (a closed pipe) is a dropped line, not a death.
  std::signal(SIGPIPE, SIG_IGN);
  // One pidfd per running supervisor: up to --max-running of them.
  raise_descriptor_limit();
  auto loop = EventLoop::create();
  if (!loop) return loop.error();
  SupervisorLauncher launcher(store, options.location, options.forker, real_clock());
  return run_daemon(store, options, log,
                    {real_clock(), system_processes(), *loop, launcher, current_process()});
}

}  // namespace orrery
