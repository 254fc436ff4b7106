#include "exec/supervisor.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>

#include "core/duration.h"
#include "core/limits.h"
#include "core/output_tail.h"
#include "core/prompt_template.h"
#include "core/run_environment.h"
#include "core/step_values.h"
#include "core/stream_scrubber.h"
#include "core/text.h"
#include "core/usage.h"
#include "core/usage_limit.h"
#include "exec/claim_keeper.h"
#include "exec/clock.h"
#include "exec/command_runner.h"
#include "exec/log_file.h"
#include "exec/process_identity.h"
#include "exec/run_files_scrub.h"
#include "exec/run_secrets.h"
#include "exec/spawn.h"
#include "exec/stop_signals.h"
#include "exec/supervisor_start.h"
#include "exec/wake.h"
#include "store/data_dir.h"
#include "store/home_layout.h"
#include "store/regular_file.h"
#include "store/secrets.h"

namespace orrery {
namespace {

using Clock = std::chrono::steady_clock;

// t + ms, or the end of time when that does not fit.
Clock::time_point plus(Clock::time_point t, DurationMs ms) {
  using std::chrono::milliseconds;
  const auto room = std::chrono::duration_cast<milliseconds>(Clock::time_point::max() - t);
  if (ms < 0) ms = 0;
  return ms >= room.count() ? Clock::time_point::max() : t + milliseconds(ms);
}

// One output stream: its pipe, its log file, its scrubber and stored tail.
struct OutputStream {
  int pipe_fd = -1;
  std::unique_ptr<LogFile> log;
  StreamScrubber scrubber;
  OutputTail tail;
  std::optional<Error> log_error;  // the first failed write; nothing is written after it

  explicit OutputStream(const Scrubber& s) : scrubber(s) {}
  void write_out(const std::string& text) {
    if (text.empty()) return;
    tail.append(text);
    if (!log || log_error) return;
    if (auto written = log->append(text); !written) log_error = written.error();
  }
  // Reads what is available; false at end of stream.
  bool read_some() {
    char buffer[64 * 1024];
    const ssize_t got = ::read(pipe_fd, buffer, sizeof buffer);
    if (got > 0) {
      write_out(scrubber.feed(std::string_view(buffer, size_t(got))));
      return true;
    }
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) return true;
    close_pipe();
    return false;
  }
  void close_pipe() {
    if (pipe_fd < 0) return;
    write_out(scrubber.finish());
    ::close(pipe_fd);
    pipe_fd = -1;
  }
};

// Why the supervisor stopped the target before it exited by itself.
struct StopCause {
  RunStatus status = RunStatus::kFailed;
  std::string reason;
};

class Supervision {
 public:
  Supervision(ClaimLedger& ledger, Cooldowns& cooldowns, Env& env, const SupervisedJob& job,
              const JobSetup& setup)
      : cooldowns_(cooldowns),
        env_(env),
        job_(job),
        setup_(setup),
        keeper_(ledger, env, job.claim, job.lease_ms, job.lease_expires_at, job.dir,
                wall_clock_now),
        out_(scrubber_),
        err_(scrubber_) {}

  Status run() {
    if (const int signal = signals_.take()) return conclude(cancelled_by(signal));
    if (auto prepared = prepare(); !prepared) return conclude_failed(prepared.error().message);
    Target placed = job_.target;
    placed.cwd = cwd_;  // an agent is told its directory too
    auto invocation = invocation_of(placed);
    if (!invocation) return conclude_failed(invocation.error().message);
    auto spawned = spawn_in_group(invocation->argv, environment_, cwd_, invocation->stdin_text);
    if (!spawned) return conclude_failed(spawned.error().message);
    // The record exists before the target can run (docs/execution.md).
    SpawnedProcess held = *spawned;
    child_ = held.pid;
    const ProcessIdentity target{child_, process_start_time(child_)};
    if (auto recorded = keeper_.record_process(target, child_, current_process()); !recorded) {
      discard(held);
      child_ = -1;
      return conclude_failed("cannot record the target process: " + recorded.error().message);
    }
    if (auto released = release(held, cwd_, invocation->argv[0]); !released) {
      child_ = -1;
      return conclude_failed(released.error().message);
    }
    out_.pipe_fd = held.stdout_fd;
    err_.pipe_fd = held.stderr_fd;
    pidfd_ = int(syscall(SYS_pidfd_open, child_, 0));
    watch();
    if (pidfd_ >= 0) close(pidfd_);
    if (claim_lost_) return *claim_lost_;  // not ours to finish any more
    return conclude(outcome());
  }

 private:
  Status prepare() {
    if (auto made = prepare_data_dir(job_.dir); !made) return made;
    const RunDirectory dir(job_.dir);
    for (auto [stream, path] :
         {std::pair{&out_, dir.stdout_log()}, std::pair{&err_, dir.stderr_log()}}) {
      stream->log = std::make_unique<LogFile>(env_, path, log_limit());
      if (auto opened = stream->log->open(); !opened) return opened;
    }
    // Each attempt after the first starts both logs with a marker line.
    if (job_.attempt > 1 || out_.log->has_output() || err_.log->has_output()) {
      for (OutputStream* stream : {&out_, &err_}) {
        if (auto marked = stream->log->mark_attempt(job_.attempt, job_.started_at); !marked)
          return marked;
      }
    }
    auto prepared = setup_(process_environment());
    if (!prepared) return prepared.error();
    for (std::string& known : orrery_known_secrets(prepared->environment))
      prepared->secret_values.push_back(std::move(known));
    scrubber_ = Scrubber(std::move(prepared->secret_values));
    environment_ = std::move(prepared->environment);
    if (!prepared->cwd.empty()) cwd_ = std::move(prepared->cwd);
    if (!prepared->note.empty()) err_.write_out("orrery: " + prepared->note + "\n");
    if (job_.goal) {
      auto goal_vars = hand_goal_over(env_, *job_.goal);
      if (!goal_vars) return goal_vars.error();
      for (EnvVar& pair : *goal_vars) {
        std::erase_if(environment_, [&](const EnvVar& old) { return old.first == pair.first; });
        environment_.push_back(std::move(pair));
      }
    }
    return Ok{};
  }

  // The job's limit per stream; a value no valid loop has means the default.
  std::int64_t log_limit() const {
    return job_.log_limit_bytes > 0 ? job_.log_limit_bytes : kDefaultLogLimitBytes;
  }

  // What to start: the command as given, or the agent CLI with its prompt.
  // A workflow step's prompt is a template filled in first; an agent's
  // prompt ends with the previous attempt's feedback, when its work item's
  // last attempt failed (unless the template placed it), and its goal's
  // section, when the work is a turn. A workflow step's prompt is kept as
  // given, scrubbed, for `workflow show-run` (docs/workflows.md).
  Result<AgentInvocation> invocation_of(const Target& target) const {
    if (!target.agent) return AgentInvocation{target_argv(target), std::nullopt};
    auto prompt = prompt_of(*target.agent);
    if (!prompt) return prompt.error();
    if (!job_.prompt_values.empty()) {
      auto kept = write_file_atomically(env_, RunDirectory(job_.dir).prompt(job_.attempt),
                                        scrubber_.scrub(*prompt), 0600);
      if (!kept) return kept.error();
    }
    return build_agent_invocation(*target.agent, *prompt);
  }

  Result<std::string> prompt_of(const AgentTarget& agent) const {
    std::string prompt = agent.prompt;
    if (!agent.prompt_file.empty()) {
      auto file = read_regular_file(agent.prompt_file, kMaxPromptFileBytes);
      if (!file) return usage_error("the prompt file " + file.error().message);
      if (!*file) return usage_error("the prompt file " + agent.prompt_file + " no longer exists");
      prompt = std::move(**file);
    }
    bool feedback_placed = false;
    if (!job_.prompt_values.empty()) {
      auto filled = render_template(prompt, job_.prompt_values, "prompt");
      if (!filled) return filled.error();
      feedback_placed = template_names(prompt, "feedback");
      prompt = std::move(*filled);
    }
    if (!feedback_placed) prompt += job_.prompt_feedback;
    if (job_.goal) prompt += job_.goal->prompt_section;
    return prompt;
  }

  static StopCause cancelled_by(int signal) {
    return {RunStatus::kCancelled,
            std::string("the supervisor received ") + stop_signal_name(signal)};
  }

  void kill_group(int signal) {
    if (child_ > 0) ::kill(-child_, signal);
  }

  // Reaps what of the target's group has exited (its orphans are ours: the
  // supervisor is their subreaper); true while anything of it lives.
  bool group_lives() {
    if (child_ <= 0) return false;
    while (true) {
      siginfo_t info{};
      if (::waitid(P_PGID, id_t(child_), &info, WEXITED | WNOHANG) != 0 || info.si_pid == 0) break;
    }
    return ::kill(-child_, 0) == 0;
  }

  // Stops the target: SIGTERM to its group now, SIGKILL after the grace.
  void stop(StopCause cause) {
    if (!stop_cause_) stop_cause_ = std::move(cause);
    if (kill_at_) return;
    if (!reaped_ || group_lives()) kill_group(SIGTERM);  // see the SIGKILL below
    kill_at_ = plus(Clock::now(), kKillGraceMs);
  }

  std::optional<StopCause> log_failure() const {
    for (const OutputStream* stream : {&out_, &err_}) {
      if (stream->log_error) return StopCause{RunStatus::kFailed, stream->log_error->message};
    }
    return std::nullopt;
  }

  // Renews the lease when due. A lost claim or a lease that ran out stops
  // the target (SIGTERM, SIGKILL after the grace); a lost claim also means
  // the run is not finished here (docs/execution.md).
  void keep_claim() {
    if (Clock::now() < keeper_.next_beat()) return;
    const ClaimKeeper::Beat beat = keeper_.beat();
    if (beat == ClaimKeeper::Beat::kLost) claim_lost_ = keeper_.lost_reason();
    if (beat == ClaimKeeper::Beat::kLost || beat == ClaimKeeper::Beat::kExpired) {
      stop({RunStatus::kFailed, keeper_.lost_reason().message});
    } else if (beat == ClaimKeeper::Beat::kRenewed && job_.on_beat) {
      if (auto beat_ok = job_.on_beat(); !beat_ok)
        stop({RunStatus::kFailed, beat_ok.error().message});
    }
  }

  // The event loop: output, the child's exit, signals, heartbeats, timeouts.
  void watch() {
    const Clock::time_point started = Clock::now();
    const Clock::time_point deadline =
        job_.timeout_ms ? plus(started, *job_.timeout_ms) : Clock::time_point::max();
    Clock::time_point idle_since = started;
    std::optional<Clock::time_point> drain_until;
    while (out_.pipe_fd >= 0 || err_.pipe_fd >= 0 || !reaped_) {
      const Clock::time_point now = Clock::now();
      if (reaped_ && drain_until && now >= *drain_until) break;
      keep_claim();
      const Clock::time_point idle_deadline =
          job_.idle_timeout_ms ? plus(idle_since, *job_.idle_timeout_ms) : Clock::time_point::max();
      if (!reaped_) {
        if (auto failed = log_failure()) {
          stop(*failed);
        } else if (now >= deadline) {
          stop({RunStatus::kTimedOut, "timed out after " + format_duration(*job_.timeout_ms)});
        } else if (now >= idle_deadline) {
          stop({RunStatus::kTimedOut, "no output for " + format_duration(*job_.idle_timeout_ms)});
        }
      }
      if (kill_at_ && now >= *kill_at_) {  // the group, even once the target itself is gone
        // Until the leader is reaped its group id cannot be reused; after,
        // only a group seen alive is ours.
        if (!reaped_ || group_lives()) kill_group(SIGKILL);
        kill_at_ = Clock::time_point::max();
      }
      Clock::time_point wake = keeper_.next_beat();
      if (!reaped_) wake = std::min({wake, deadline, idle_deadline});
      if (kill_at_) wake = std::min(wake, *kill_at_);
      if (drain_until) wake = std::min(wake, *drain_until);
      const int signal = poll_once(wake, &idle_since);
      if (signal != 0) {
        if (!reaped_) {
          stop(cancelled_by(signal));
        } else {
          drain_until = now;  // the target is done: stop waiting for its leftovers' output
        }
      }
      if (reaped_ && !drain_until) drain_until = plus(Clock::now(), kDrainMs);
    }
    // Whatever was not read by now belongs to processes that outlived the target.
    out_.close_pipe();
    err_.close_pipe();
    stop_leftovers();
  }

  // What is left of the target's group gets SIGTERM, then SIGKILL after the
  // grace (or when a stop already under way ends), as systemd's
  // KillMode=control-group (docs/execution.md).
  void stop_leftovers() {
    if (!group_lives()) return;
    const Clock::time_point now = Clock::now();
    Clock::time_point kill_at = plus(now, kKillGraceMs);
    if (kill_at_) {
      kill_at = std::max(now, std::min(kill_at, *kill_at_));  // a stop under way keeps its time
    } else {
      kill_group(SIGTERM);
    }
    const Clock::time_point give_up = plus(kill_at, kKillGraceMs);  // zombies of others
    bool killed = false;
    while (group_lives() && Clock::now() < give_up) {
      keep_claim();
      if (!killed && Clock::now() >= kill_at) {
        kill_group(SIGKILL);
        killed = true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // waiting for exits
    }
  }

  // Waits for one event until `wake`; returns a stop signal received, or 0.
  int poll_once(Clock::time_point wake, Clock::time_point* idle_since) {
    pollfd fds[4];
    OutputStream* streams[2] = {&out_, &err_};
    nfds_t count = 0;
    for (OutputStream* stream : streams) {
      if (stream->pipe_fd >= 0) fds[count++] = {stream->pipe_fd, POLLIN, 0};
    }
    const bool watch_child = !reaped_ && pidfd_ >= 0;
    const nfds_t child_index = count;
    if (watch_child) fds[count++] = {pidfd_, POLLIN, 0};
    const nfds_t signal_index = count;
    if (signals_.fd() >= 0) fds[count++] = {signals_.fd(), POLLIN, 0};
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(wake - Clock::now());
    const int timeout = int(std::clamp<std::int64_t>(wait.count(), 0, 1000));
    if (::poll(fds, count, pidfd_ < 0 && !reaped_ ? std::min(timeout, 50) : timeout) < 0) return 0;
    nfds_t index = 0;
    for (OutputStream* stream : streams) {
      if (stream->pipe_fd < 0) continue;
      if (fds[index++].revents != 0) {
        stream->read_some();
        *idle_since = Clock::now();
      }
    }
    if (!reaped_ && (pidfd_ < 0 || (watch_child && fds[child_index].revents != 0))) {
      if (::waitpid(child_, &status_, pidfd_ < 0 ? WNOHANG : 0) == child_) reaped_ = true;
    }
    if (signals_.fd() >= 0 && fds[signal_index].revents != 0) return signals_.take();
    return 0;
  }

  RunOutcome outcome() {
    RunOutcome outcome;
    // Stored text is valid UTF-8 without NUL on every backend; the log
    // files keep the bytes as they came (docs/storage.md, "Stored text").
    outcome.stdout_tail = storable_text(out_.tail.text());
    outcome.stderr_tail = storable_text(err_.tail.text());
    if (job_.target.agent)
      outcome.usage = parse_usage(job_.target.agent->provider, outcome.stdout_tail);
    if (WIFEXITED(status_)) outcome.exit_code = WEXITSTATUS(status_);
    if (WIFSIGNALED(status_)) outcome.signal = WTERMSIG(status_);
    const std::optional<StopCause> cause = log_failure() ? log_failure() : stop_cause_;
    if (cause) {
      outcome.status = cause->status;
      outcome.error = cause->reason;
    } else if (outcome.exit_code == 0) {
      outcome.status = RunStatus::kSucceeded;
    } else if (outcome.exit_code) {
      outcome.status = RunStatus::kFailed;
      outcome.error = "exit status " + std::to_string(*outcome.exit_code);
    } else {
      outcome.status = RunStatus::kFailed;
      outcome.error = "killed by signal " + std::to_string(outcome.signal.value_or(0)) + " (" +
                      strsignal(outcome.signal.value_or(0)) + ")";
    }
    note_usage_limit(outcome);
    return outcome;
  }

  // A failed agent run stopped by its provider's limit: the account cools
  // down, and the run does not use up an attempt (docs/execution.md).
  void note_usage_limit(RunOutcome& outcome) {
    if (!job_.target.agent || outcome.status != RunStatus::kFailed) return;
    const AgentTarget& agent = *job_.target.agent;
    const TimeMs now = wall_clock_now();
    const auto hit =
        classify_usage_limit(agent.provider, outcome.stdout_tail + "\n" + outcome.stderr_tail, now);
    if (!hit) return;
    const std::string& account = job_.cooldown_account;
    auto cooldown = cooldowns_.record_cooldown(account, hit->reset_at, hit->pattern, now);
    if (!cooldown) {  // the outcome still counts; the cooldown is lost
      outcome.error += "; the usage limit could not be recorded: " + cooldown.error().message;
      return;
    }
    outcome.usage_limited = true;
    outcome.usage_limited_until = cooldown->until_at;
    outcome.error = "usage limit reached (" + hit->pattern + "); " + account +
                    " cools down until " + format_time(cooldown->until_at);
  }

  Status conclude_failed(const std::string& reason) {
    return conclude({RunStatus::kFailed, reason});
  }
  Status conclude(const StopCause& cause) {
    RunOutcome outcome;
    outcome.status = cause.status;
    outcome.error = scrubber_.scrub(cause.reason);
    return conclude(outcome);
  }
  Status conclude(const RunOutcome& outcome) {
    RunOutcome finished = outcome;
    if (!job_.outputs_path.empty()) finished.outputs_json = read_outputs(finished);
    if (job_.goal) take_goal_update(env_, *job_.goal, job_.target, scrubber_, finished);
    if (job_.before_finish) {
      job_.before_finish(finished);
      finished.error = scrubber_.scrub(finished.error);
    }
    scrub_files(finished);
    return keeper_.finish(finished);
  }

  // What the attempt left in its directory, read by now, scrubbed in place
  // (docs/scrubbing.md, "Files under the home"); one that could be neither
  // scrubbed nor removed fails the run, naming it.
  void scrub_files(RunOutcome& outcome) const {
    auto scrubbed = scrub_run_files(env_, job_.dir, scrubber_);
    if (scrubbed) return;
    if (outcome.status == RunStatus::kSucceeded) outcome.status = RunStatus::kFailed;
    if (outcome.error.empty()) outcome.error = scrubbed.error().message;
  }

  // A step's values (docs/workflows.md, "Passing values between steps"): the
  // file it wrote to ORRERY_OUTPUT; one it wrote wrong fails the step.
  std::string read_outputs(RunOutcome& outcome) const {
    auto file = read_regular_file(job_.outputs_path, kMaxStepOutputBytes);
    Result<std::string> outputs = std::string("{}");
    if (!file) {
      outputs = Error{file.error().code, "ORRERY_OUTPUT: " + file.error().message};
    } else if (file->has_value()) {
      outputs = parse_step_outputs(scrubber_.scrub(**file));
    }
    if (outputs) return *outputs;
    if (outcome.status == RunStatus::kSucceeded) {
      outcome.status = RunStatus::kFailed;
      outcome.error = outputs.error().message;
    }
    return "{}";
  }

  Cooldowns& cooldowns_;
  Env& env_;
  const SupervisedJob& job_;
  const JobSetup& setup_;
  ClaimKeeper keeper_;
  StopSignals signals_;
  Scrubber scrubber_;
  OutputStream out_;
  OutputStream err_;
  std::vector<EnvVar> environment_;
  std::string cwd_ = job_.target.cwd;  // the target's, or its worktree
  pid_t child_ = -1;
  int pidfd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::optional<StopCause> stop_cause_;
  std::optional<Error> claim_lost_;
  std::optional<Clock::time_point> kill_at_;
};

}  // namespace

Status supervise_job(ClaimLedger& ledger, Cooldowns& cooldowns, const SupervisedJob& job,
                     const JobSetup& setup, Env& env) {
  // Orphans of the target become this process's children, so that they can
  // be reaped and their group seen to end.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  Supervision supervision(ledger, cooldowns, env, job, setup);
  return supervision.run();
}

namespace {

// Every --secret-env name of the loop has its value: a run never starts
// without a secret it was given (a removed or emptied secrets file).
Status check_secrets_present(const std::string& home, const Loop& loop,
                             const std::vector<EnvVar>& secrets) {
  for (const std::string& name : loop.target.secret_env) {
    const bool present = std::any_of(secrets.begin(), secrets.end(),
                                     [&](const EnvVar& pair) { return pair.first == name; });
    if (!present) {
      return usage_error("the value of --secret-env " + name + " is missing from " +
                         HomeLayout(home).loop_secrets(loop.id) +
                         "; add the loop again with its --secret-env values");
    }
  }
  return Ok{};
}

// A workflow target runs as `orrery workflow run W --wait` under the run's
// supervisor: its driver is the target, so the loop's timeout, cancel and
// logs apply to the whole workflow run, linked to this run; one workflow run
// per attempt (docs/workflows.md, "Loops that run workflows").
Target workflow_command(const SuperviseRequest& request, const Loop& loop, const Run& run) {
  Target command = loop.target;
  command.type = TargetType::kCommand;
  command.shell = false;
  command.argv = {self_executable(),
                  "--home",
                  request.home,
                  "workflow",
                  "run",
                  loop.target.workflow_id,
                  "--input",
                  loop.target.input_json,
                  "--wait",
                  "--loop-run",
                  run.id,
                  "--idempotency-key",
                  "loop-run:" + run.id + ":" + std::to_string(run.attempt)};
  return command;
}

SupervisedJob loop_run_job(const SuperviseRequest& request, const Loop& loop, const Run& run) {
  SupervisedJob job;
  job.claim = Claim{run.id, run.claimed_by, request.token};
  job.dir = HomeLayout(request.home).run(run.id).path();
  job.target = loop.target;
  job.lease_ms = loop.lease_ms;
  job.lease_expires_at = run.lease_expires_at.value_or(wall_clock_now() + loop.lease_ms);
  job.timeout_ms = loop.timeout_ms;
  job.idle_timeout_ms = loop.idle_timeout_ms;
  job.log_limit_bytes = loop.log_limit_bytes;
  job.attempt = run.attempt;
  job.started_at = run.started_at.value_or(wall_clock_now());
  job.cooldown_account = cooldown_account(loop.target);
  if (loop.target.type == TargetType::kWorkflow) job.target = workflow_command(request, loop, run);
  return job;
}

}  // namespace

Status supervise(Store& store, ClaimLedger& ledger, const SuperviseRequest& request, Env& env) {
  auto run = store.get_run(request.run_id);
  if (!run) return run.error();
  if (!run->has_value()) return not_found_error("no run has the id '" + request.run_id + "'");
  if ((*run)->status != RunStatus::kRunning || (*run)->claim_token != request.token) {
    return conflict_error("run " + request.run_id + " is not running under this claim token");
  }
  auto loop = store.get_loop((*run)->loop_id);
  if (!loop) return loop.error();
  if (!loop->has_value()) return not_found_error("the loop of run " + request.run_id + " is gone");
  SupervisedJob job = loop_run_job(request, **loop, **run);
  auto goal = store.goal_of_work(job.claim, wall_clock_now());
  if (!goal) return goal.error();
  if (*goal) job.goal = goal_handoff(**goal, job.dir, job.attempt);
  const JobSetup setup = [&](const std::vector<EnvVar>& inherited) -> Result<JobEnvironment> {
    auto secrets = read_loop_secrets(request.home, (*loop)->id);
    if (!secrets) return secrets.error();
    if (auto complete = check_secrets_present(request.home, **loop, *secrets); !complete)
      return complete.error();
    JobEnvironment prepared;
    for (const auto& pair : *secrets) prepared.secret_values.push_back(pair.second);
    prepared.environment = run_environment(inherited, **loop, **run, request.home, *secrets);
    return prepared;
  };
  Status done = supervise_job(ledger, store, job, setup, env);
  notify_daemon(request.home);  // the run's end may start the next (docs/daemon.md)
  return done;
}

}  // namespace orrery
