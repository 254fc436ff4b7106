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
#include "engine/daemon_lease.h"
#include "engine/event_loop.h"
#include "engine/notice_watch.h"
#include "engine/sd_notify.h"
#include "engine/suspend_detector.h"
#include "engine/workflow_drivers.h"
#include "exec/clock.h"
#include "exec/process_identity.h"
#include "exec/supervisor.h"
#include "exec/wake.h"

namespace orrery {
namespace {

using Steady = std::chrono::steady_clock;

constexpr DurationMs kConflictRetryMs = 100;   // a plan or settle that conflicted
constexpr DurationMs kLeaseRecheckMs = 1000;   // a run lease end that has passed
constexpr DurationMs kLeaseCheckSlackMs = 50;  // a runner tries the lease this long after its end

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

// The file a path names (device and inode); nothing when it cannot be told.
struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  bool missing = false;  // no file at the path
  friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};

std::optional<FileIdentity> file_identity(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) return FileIdentity{info.st_dev, info.st_ino, false};
  if (errno == ENOENT) return FileIdentity{0, 0, true};
  return std::nullopt;
}

// A process group signalled SIGTERM whose supervisor was gone: SIGKILL at `at`.
struct PendingKill {
  int pgid = 0;
  Steady::time_point at;
};

class Daemon {
 public:
  Daemon(Store& store, const DaemonOptions& options, DaemonLog& log, EventLoop loop)
      : store_(store),
        options_(options),
        log_(log),
        loop_(std::move(loop)),
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
  // The lease, the wake-up socket, READY=1.
  Status start() {
    const TimeMs now = wall_clock_now();
    if (!options_.database_path.empty()) database_ = file_identity(options_.database_path);
    settings_.location = options_.location;
    settings_.claimant = "daemon@" + probe_.host_name() + ":" + std::to_string(getpid());
    settings_.max_running = options_.max_running;
    settings_.to_runners = options_.shared_database;
    runner_labels_ =
        options_.labels.empty() ? "host=" + probe_.host_name() : labels_text(options_.labels);
    auto lease = acquire_lease(store_, current_process(), options_.lease_ttl_ms, now);
    if (lease) {
      take_lease(*lease, "taken");
    } else if (options_.shared_database && !options_.once &&
               lease.error().code == ErrorCode::kConflict) {
      scheduling_ = false;
      next_lease_check_ = Steady::now() + ms(heartbeat_interval(options_.lease_ttl_ms));
      log(lease.error().message + "; running as a runner (labels " + runner_labels_ +
          ") until the lease is free");
    } else {
      return lease.error();
    }
    register_as_runner(now);
    watching_since_ = options_.once ? options_.started_at : now;
    next_heartbeat_ = Steady::now() + ms(heartbeat_interval(options_.lease_ttl_ms));
    if (options_.shared_database) notices_.refresh();
    if (!options_.once) {
      auto listener = WakeListener::listen(options_.location.home);
      if (listener) {
        listener_.emplace(std::move(*listener));
        if (auto watched = loop_.watch_readable(listener_->fd()); !watched) {
          log("wake-ups are off: " + watched.error().message);
        }
      } else {
        log("wake-ups are off (" + listener.error().message +
            "); changes are seen at the next heartbeat or due slot");
      }
      sd_notify("READY=1\nSTATUS=running loops\nMAINPID=" + std::to_string(getpid()));
      log("ready: running loops (max " + std::to_string(options_.max_running) +
          " at once; wake-ups on " + wake_socket_path(options_.location.home) + ")");
      if (watchdog_) next_watchdog_ = Steady::now();
    }
    return Ok{};
  }

  // The lease is this daemon's: it schedules from now on.
  void take_lease(const DaemonLease& lease, const std::string& how) {
    lease_ = lease;
    settings_.fence = Fence{lease_.lease_id};
    scheduling_ = true;
    recover_ = true;
    expire_ = true;
    log("lease " + lease_.lease_id + " " + how + " (generation " +
        std::to_string(lease_.generation) + ", ttl " + format_duration(options_.lease_ttl_ms) +
        ", pid " + std::to_string(getpid()) + ")");
    start_workflow_drivers();
  }

  // This daemon's row among the runners (docs/daemon.md, "Runners"): what
  // `status` lists. Best effort: a failure is logged, the daemon goes on.
  void register_as_runner(TimeMs now) {
    RunnerRecord runner;
    runner.id = settings_.claimant;
    runner.host = probe_.host_name();
    runner.labels = runner_labels_;
    runner.process = current_process();
    runner.home = options_.location.home;
    runner.started_at = now;
    if (auto registered = store_.register_runner(runner, now); !registered) {
      log("could not register as a runner (" + registered.error().message + ")");
    }
  }

  void heartbeat_runner(TimeMs now) {
    auto beat = store_.heartbeat_runner(settings_.claimant, now);
    if (!beat && beat.error().code == ErrorCode::kNotFound) register_as_runner(now);
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
    if (auto released = store_.release_daemon_lease(lease_.lease_id); !released) {
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
      } else {
        runner_heartbeat_if_due();
        take_lease_when_free();
      }
      serve_as_runner();
      auto events = loop_.wait(next_deadline());
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
      if (ours_.empty() && !more_ && !retry_at_) break;
      auto events = loop_.wait(next_deadline());
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
    auto lease = acquire_lease(store_, current_process(), options_.lease_ttl_ms, wall_clock_now());
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
    heartbeat_runner(wall_clock_now());
    next_heartbeat_ = Steady::now() + ms(heartbeat_interval(options_.lease_ttl_ms));
    return Ok{};
  }

  // Logs `what` and tries the heartbeat again after the backoff, within the
  // heartbeat interval.
  void retry_heartbeat(const std::string& what) {
    heartbeat_failing_ = true;
    const DurationMs delay =
        std::min(heartbeat_backoff_.next(), heartbeat_interval(options_.lease_ttl_ms));
    log(what + "; retrying in " + format_duration(delay));
    next_heartbeat_ = Steady::now() + ms(delay);
  }

  // The database file removed or replaced (another inode at its path): the
  // daemon would go on alone with a file no command or supervisor sees.
  Status check_database_file() const {
    if (!database_ || database_->missing) return Ok{};
    const std::optional<FileIdentity> now = file_identity(options_.database_path);
    if (!now || *now == *database_) return Ok{};
    return unavailable_error("the database file " + options_.database_path + " was " +
                             (now->missing ? "removed" : "replaced") +
                             " while the daemon ran; stopping (start the daemon again to use "
                             "the file now there)");
  }

  // Renews the lease when due. Heartbeats that failed on store errors (a
  // full disk, an I/O error) until the lease ran out leave it to whoever
  // takes it first: this daemon takes it again unless another one did.
  Status heartbeat_if_due() {
    if (Steady::now() < next_heartbeat_) return Ok{};
    if (auto same = check_database_file(); !same) return same;
    auto beat =
        store_.heartbeat_daemon_lease(lease_.lease_id, options_.lease_ttl_ms, wall_clock_now());
    if (!beat) {
      if (!is_lease_lost(beat.error())) {
        retry_heartbeat("lease heartbeat failed (" + beat.error().message + ")");
        return Ok{};
      }
      if (!heartbeat_failing_) return beat;
      return retake_lease("after store errors");
    }
    heartbeat_failing_ = false;
    heartbeat_backoff_.reset();
    next_heartbeat_ = Steady::now() + ms(heartbeat_interval(options_.lease_ttl_ms));
    recover_ = true;  // a supervisor started by an earlier daemon may be gone
    expire_ = true;
    heartbeat_runner(wall_clock_now());
    look_for_work();
    start_workflow_drivers();
    return Ok{};
  }

  // Workflow runs whose driver died get a new one (docs/workflows.md).
  void start_workflow_drivers() {
    if (options_.once) return;
    drivers_.start_missing(store_, wall_clock_now(),
                           [this](const std::string& line) { log(line); });
  }

  // A tick, the wake times after it, and the processes it asks for. A store
  // error other than a lost lease is logged and retried with a backoff.
  Status tick() {
    if (retry_at_ && Steady::now() < *retry_at_ && !more_) return Ok{};
    retry_at_.reset();
    more_ = false;
    const TimeMs now = wall_clock_now();
    TickTimes times{now, options_.once ? options_.started_at : now, watching_since_};
    if (!exited_runs_.empty()) note_unfinished_runs();
    auto report = run_tick(store_, probe_, settings_, times, {recover_, expire_},
                           [this](const std::string& line) { log(line); });
    if (report) {
      recover_ = false;
      expire_ = false;
      stop_replaced(report->replaced);  // the old run stops before its replacement starts
      launch(report->claimed);
      if (report->pending > 0) claim_due_ = true;
      more_ = report->more;
      if (report->retry_soon) retry_at_ = Steady::now() + ms(kConflictRetryMs);
      auto wake = store_.wake_times(now);
      if (wake) {
        wake_ = *wake;
        tick_backoff_.reset();
        return Ok{};
      }
      report = wake.error();
    }
    const DurationMs delay = tick_backoff_.next();
    retry_at_ = Steady::now() + ms(delay);
    if (is_lease_lost(report.error())) {
      if (!heartbeat_failing_) return report.error();
      // The lease ran out while heartbeats failed: the next heartbeat, due
      // now, takes it again or finds it lost.
      next_heartbeat_ = Steady::now();
      log("the lease ran out while its heartbeats failed; taking it again");
      return Ok{};
    }
    log("store error: " + report.error().message + "; retrying in " + format_duration(delay));
    return Ok{};
  }

  // A runner's heartbeat (not the lease holder): its row, then a look for
  // work a lost notice may have hidden.
  void runner_heartbeat_if_due() {
    if (Steady::now() < next_heartbeat_) return;
    next_heartbeat_ = Steady::now() + ms(heartbeat_interval(options_.lease_ttl_ms));
    heartbeat_runner(wall_clock_now());
    look_for_work();
  }

  // A runner tries the lease when it may have expired: the holder that
  // stopped heartbeating (killed, cut off) is replaced within its ttl.
  void take_lease_when_free() {
    if (Steady::now() < next_lease_check_) return;
    const DurationMs interval = heartbeat_interval(options_.lease_ttl_ms);
    next_lease_check_ = Steady::now() + ms(interval);
    auto lease = acquire_lease(store_, current_process(), options_.lease_ttl_ms, wall_clock_now());
    if (lease) {
      take_lease(*lease, "taken over");
      watching_since_ = wall_clock_now();
      next_heartbeat_ = Steady::now() + ms(interval);
      return;
    }
    if (lease.error().code != ErrorCode::kConflict) {
      log("the lease could not be checked (" + lease.error().message + ")");
      return;
    }
    // Held: look again just after it would expire, if that is sooner.
    auto holder = store_.get_daemon_lease();
    if (!holder || !holder->has_value()) return;
    const DurationMs left = (*holder)->expires_at - wall_clock_now() + kLeaseCheckSlackMs;
    if (left < interval) next_lease_check_ = Steady::now() + ms(std::max<DurationMs>(left, 0));
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
    if (claim_retry_at_ && Steady::now() < *claim_retry_at_) return;
    claim_retry_at_.reset();
    claim_due_ = false;
    const int room = options_.max_running - int(ours_.size());
    if (room <= 0) return;
    auto claimed = store_.claim_pending(settings_.claimant, runner_labels_, room, wall_clock_now());
    if (!claimed) {
      const DurationMs delay = claim_backoff_.next();
      claim_retry_at_ = Steady::now() + ms(delay);
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
      ::kill(*supervisor, SIGTERM);
      log("run " + run.id + " of loop " + run.loop_name + " cancelled on request (supervisor pid " +
          std::to_string(*supervisor) + ")");
    }
  }

  // The live supervisor of one of this daemon's runs, if any.
  std::optional<pid_t> supervisor_of(const Run& run) const {
    for (const auto& [pid, launched] : ours_) {
      if (launched.run_id == run.id) return pid;
    }
    if (run.supervisor && runs_on_host(run, probe_.host_name()) &&
        probe_.is_alive(*run.supervisor)) {
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
        (void)store_.record_supervisor(launched.claim, launched.supervisor, wall_clock_now());
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
        loop_.watch_process(pid, started->pidfd);
      } else {
        loop_.watch_process(pid);
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
    const bool had_server = options_.forker != nullptr && !launcher_.forker_gone();
    auto started = launcher_.launch({run.claim, claimed_lease_ms(run.run), false, true});
    if (had_server && launcher_.forker_gone()) {
      log("the supervisor fork server is gone; supervisors are exec'd from now on");
    }
    return started;
  }

  // Overlap `replace`: the supervisor treats SIGTERM as cancel; a run whose
  // supervisor is gone has its target's group stopped (SIGKILL after the
  // grace) and recovery records it.
  void stop_replaced(const std::vector<Run>& runs) {
    const std::string host = probe_.host_name();
    for (const Run& run : runs) {
      if (run.status == RunStatus::kPending || !runs_on_host(run, host)) {
        // No supervisor yet, or another host's pids, which signalling here
        // could hit any process: cancelled in the store, or asked of its runner.
        request_cancel_of(run, "replaced by a newer slot (overlap replace)");
        continue;
      }
      if (run.supervisor && probe_.is_alive(*run.supervisor)) {
        ::kill(run.supervisor->pid, SIGTERM);
        log("run " + run.id + " of loop " + run.loop_name +
            " replaced: cancelling it (supervisor pid " + std::to_string(run.supervisor->pid) +
            ")");
      } else if (run.pgid && *run.pgid > 1 && ::kill(-*run.pgid, SIGTERM) == 0) {
        kills_.push_back({*run.pgid, Steady::now() + ms(kKillGraceMs)});
        log("run " + run.id + " of loop " + run.loop_name +
            " replaced: its supervisor is gone; stopping process group " +
            std::to_string(*run.pgid));
        recover_ = true;
      }
    }
  }

  void request_cancel_of(const Run& run, const std::string& reason) {
    auto status = store_.request_cancel(run.id, reason, wall_clock_now());
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
    const auto now = Steady::now();
    for (auto it = kills_.begin(); it != kills_.end();) {
      if (it->at > now) {
        ++it;
        continue;
      }
      ::kill(-it->pgid, SIGKILL);
      it = kills_.erase(it);
    }
  }

  // The earliest wall-clock instant the daemon must look again; now when
  // work was left.
  std::optional<TimeMs> next_deadline() const {
    const TimeMs now = wall_clock_now();
    const auto steady_now = Steady::now();
    const auto at = [&](Steady::time_point when) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(when - steady_now);
      return add_saturating(now, std::max<DurationMs>(0, left.count()));
    };
    std::optional<TimeMs> earliest;
    const auto consider = [&](std::optional<TimeMs> time) {
      if (time && (!earliest || *time < *earliest)) earliest = time;
    };
    if (more_) return now;
    consider(at(next_heartbeat_));
    if (next_watchdog_) consider(at(*next_watchdog_));
    for (const PendingKill& kill : kills_) consider(at(kill.at));
    if (options_.shared_database && claim_due_) {
      consider(claim_retry_at_ ? at(*claim_retry_at_) : now);
    }
    if (!scheduling_) {
      consider(at(next_lease_check_));
      return earliest;
    }
    if (retry_at_) {
      consider(at(*retry_at_));
      return earliest;  // the store failed: the wake times are stale
    }
    if (!options_.once) {
      consider(wake_.next_due);
      consider(wake_.cooldown_end);
      // A lease end already past is being recovered (or deferred): look
      // again a little later, never in a tight loop.
      if (wake_.lease_expiry) consider(std::max(*wake_.lease_expiry, now + kLeaseRecheckMs));
    }
    return earliest;
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
    }
    for (pid_t pid : events.exited) {
      const auto found = ours_.find(pid);
      if (found == ours_.end()) continue;
      cancelled_.erase(found->second.run_id);
      exited_runs_.push_back(found->second);
      ours_.erase(found);
      claim_due_ = options_.shared_database;  // room for another pending run
    }
    if (events.clock_stepped) log("the wall clock was set; looking again");
    if (const DurationMs slept = detector_.slept(read_clock_pair()); slept > 0) {
      watching_since_ = wall_clock_now();
      suspended_ = true;
      log("the machine was suspended for " + format_duration(slept) +
          "; slots that fell due meanwhile are missed");
    }
    if (watchdog_ && next_watchdog_ && Steady::now() >= *next_watchdog_) {
      sd_notify("WATCHDOG=1");
      next_watchdog_ = Steady::now() + ms(*watchdog_);
    }
    kill_overdue_groups();
    if (wake_.lease_expiry && *wake_.lease_expiry <= wall_clock_now()) recover_ = true;
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

  void log(const std::string& line) { log_.write(wall_clock_now(), line); }

  Store& store_;
  const DaemonOptions& options_;
  DaemonLog& log_;
  EventLoop loop_;
  SystemProcessProbe probe_;
  SuspendDetector detector_;
  std::optional<DurationMs> watchdog_;
  std::optional<Steady::time_point> next_watchdog_;
  std::optional<WakeListener> listener_;
  DaemonLease lease_;
  TickSettings settings_;
  TimeMs watching_since_ = 0;
  Steady::time_point next_heartbeat_;
  StoreBackoff heartbeat_backoff_;
  StoreBackoff tick_backoff_;
  std::optional<Steady::time_point> retry_at_;
  WakeTimes wake_;
  bool recover_ = true;
  bool expire_ = true;
  bool more_ = false;
  bool stopping_ = false;
  bool suspended_ = false;
  std::optional<FileIdentity> database_;      // the database file at the start
  bool heartbeat_failing_ = false;            // the last heartbeat failed on a store error
  std::unordered_map<pid_t, Launched> ours_;  // by supervisor pid
  std::vector<Launched> exited_runs_;         // whose supervisor exited
  std::vector<PendingKill> kills_;
  DaemonResult result_;
  WorkflowDriverStarter drivers_{options_.location};
  SupervisorLauncher launcher_{store_, options_.location, options_.forker};

  // Runners (docs/daemon.md, "Runners"): on a shared database only.
  bool scheduling_ = true;     // holds the lease; else a runner only
  std::string runner_labels_;  // the stored form, host= included
  Steady::time_point next_lease_check_;
  NoticeWatch notices_{store_, loop_, [this](const std::string& line) { log(line); }};
  bool claim_due_ = true;
  bool cancels_due_ = true;
  std::optional<Steady::time_point> claim_retry_at_;
  StoreBackoff claim_backoff_;
  std::unordered_set<std::string> cancelled_;  // runs whose supervisor was asked to stop
};

}  // namespace

Result<DaemonResult> run_daemon(Store& store, const DaemonOptions& options, DaemonLog& log) {
  // A log reader that went away (a closed pipe) is a dropped line, not a death.
  std::signal(SIGPIPE, SIG_IGN);
  // One pidfd per running supervisor: up to --max-running of them.
  raise_descriptor_limit();
  auto loop = EventLoop::create();
  if (!loop) return loop.error();
  Daemon daemon(store, options, log, std::move(*loop));
  return daemon.run();
}

}  // namespace orrery
