#include "exec/supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>

#include "core/duration.h"
#include "core/output_tail.h"
#include "core/run_environment.h"
#include "core/stream_scrubber.h"
#include "core/usage.h"
#include "core/usage_limit.h"
#include "exec/process_identity.h"
#include "exec/spawn.h"
#include "store/data_dir.h"
#include "store/secrets.h"

extern char** environ;

namespace orrery {
namespace {

using Clock = std::chrono::steady_clock;

TimeMs wall_now() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::vector<EnvVar> inherited_environment() {
  std::vector<EnvVar> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const size_t equals = text.find('=');
    if (equals != std::string::npos)
      env.emplace_back(text.substr(0, equals), text.substr(equals + 1));
  }
  return env;
}

// One output stream: its pipe, its log file, its scrubber and stored tail.
struct OutputStream {
  int pipe_fd = -1;
  int log_fd = -1;
  StreamScrubber scrubber;
  OutputTail tail;

  OutputStream(const Scrubber& s) : scrubber(s) {}
  void write_out(const std::string& text) {
    if (text.empty()) return;
    if (log_fd >= 0) (void)!::write(log_fd, text.data(), text.size());
    tail.append(text);
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
    write_out(scrubber.finish());
    ::close(pipe_fd);
    pipe_fd = -1;
    return false;
  }
};

int open_log(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
}

class Supervision {
 public:
  Supervision(Store& store, const SuperviseRequest& request, Loop loop, Run run)
      : store_(store),
        request_(request),
        loop_(std::move(loop)),
        run_(std::move(run)),
        claim_{run_.id, run_.claimed_by, request.token},
        out_(scrubber_),
        err_(scrubber_) {}

  Status run() {
    auto prepared = prepare();
    if (!prepared) return finish_failed(prepared.error().message);
    auto invocation = invocation_of(loop_.target);
    if (!invocation) return finish_failed(invocation.error().message);
    auto spawned =
        spawn_in_group(invocation->argv, environment_, loop_.target.cwd, invocation->stdin_text);
    if (!spawned) return finish_failed(spawned.error().message);
    child_ = spawned->pid;
    out_.pipe_fd = spawned->stdout_fd;
    err_.pipe_fd = spawned->stderr_fd;
    pidfd_ = int(syscall(SYS_pidfd_open, child_, 0));
    const ProcessIdentity target{child_, process_start_time(child_)};
    if (auto recorded =
            store_.record_process(claim_, target, child_, current_process(), wall_now());
        !recorded) {
      kill_group(SIGKILL);
      return recorded;
    }
    if (auto watched = watch(); !watched) return watched;
    return finalize();
  }

 private:
  Status prepare() {
    const std::string dir = run_directory(request_.home, run_.id);
    if (auto made = prepare_data_dir(dir); !made) return made;
    out_.log_fd = open_log(dir + "/stdout.log");
    err_.log_fd = open_log(dir + "/stderr.log");
    auto secrets = read_loop_secrets(request_.home, loop_.id);
    if (!secrets) return secrets.error();
    std::vector<std::string> values;
    for (const auto& pair : *secrets) values.push_back(pair.second);
    scrubber_ = Scrubber(values);
    environment_ = run_environment(inherited_environment(), loop_, run_, request_.home, *secrets);
    return Ok{};
  }

  // What to start: the command as given, or the agent CLI with its prompt.
  static Result<AgentInvocation> invocation_of(const Target& target) {
    if (!target.agent) return AgentInvocation{target_argv(target), std::nullopt};
    std::string prompt = target.agent->prompt;
    if (!target.agent->prompt_file.empty()) {
      std::ifstream file(target.agent->prompt_file, std::ios::binary);
      if (!file) return usage_error("cannot read prompt file " + target.agent->prompt_file);
      prompt.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    }
    return build_agent_invocation(*target.agent, prompt);
  }

  void kill_group(int signal) {
    if (child_ > 0) ::kill(-child_, signal);
  }

  Clock::time_point after(DurationMs ms) const {
    return Clock::now() + std::chrono::milliseconds(ms);
  }

  // The event loop: output, the child's exit, heartbeats and timeouts.
  Status watch() {
    const Clock::time_point started = Clock::now();
    Clock::time_point heartbeat = after(std::max<DurationMs>(loop_.lease_ms / 3, 100));
    Clock::time_point idle_since = started;
    std::optional<Clock::time_point> kill_at;
    std::optional<Clock::time_point> drain_until;
    while (out_.pipe_fd >= 0 || err_.pipe_fd >= 0 || !reaped_) {
      const Clock::time_point now = Clock::now();
      if (reaped_ && drain_until && now >= *drain_until) break;
      if (now >= heartbeat) {
        if (auto beat = store_.heartbeat_run(claim_, loop_.lease_ms, wall_now()); !beat) {
          kill_group(SIGKILL);
          return beat;
        }
        heartbeat = after(std::max<DurationMs>(loop_.lease_ms / 3, 100));
      }
      if (!reaped_ && !kill_at) {
        if (loop_.timeout_ms && now >= started + std::chrono::milliseconds(*loop_.timeout_ms)) {
          stop("timed out after " + format_ms(*loop_.timeout_ms), &kill_at);
        } else if (loop_.idle_timeout_ms &&
                   now >= idle_since + std::chrono::milliseconds(*loop_.idle_timeout_ms)) {
          stop("no output for " + format_ms(*loop_.idle_timeout_ms), &kill_at);
        }
      }
      if (kill_at && now >= *kill_at) {  // the group, even once the target itself is gone
        kill_group(SIGKILL);
        kill_at = Clock::time_point::max();
      }
      Clock::time_point wake = heartbeat;
      if (!reaped_ && loop_.timeout_ms)
        wake = std::min(wake, started + std::chrono::milliseconds(*loop_.timeout_ms));
      if (!reaped_ && loop_.idle_timeout_ms)
        wake = std::min(wake, idle_since + std::chrono::milliseconds(*loop_.idle_timeout_ms));
      if (kill_at) wake = std::min(wake, *kill_at);
      if (drain_until) wake = std::min(wake, *drain_until);
      if (poll_once(wake, &idle_since) && reaped_ && !drain_until) {
        drain_until = after(1000);  // late output of the exited target
      }
    }
    // Whatever was not read by now belongs to processes that outlived the target.
    for (OutputStream* stream : {&out_, &err_}) {
      if (stream->pipe_fd >= 0) {
        stream->write_out(stream->scrubber.finish());
        ::close(stream->pipe_fd);
        stream->pipe_fd = -1;
      }
    }
    // A timed-out run leaves nothing behind, even processes that ignored SIGTERM.
    if (kill_at) kill_group(SIGKILL);
    return Ok{};
  }

  // Waits for one event until `wake`; true when the child was reaped.
  bool poll_once(Clock::time_point wake, Clock::time_point* idle_since) {
    pollfd fds[3];
    OutputStream* streams[2] = {&out_, &err_};
    nfds_t count = 0;
    for (OutputStream* stream : streams) {
      if (stream->pipe_fd >= 0) fds[count++] = {stream->pipe_fd, POLLIN, 0};
    }
    const bool watch_child = !reaped_ && pidfd_ >= 0;
    if (watch_child) fds[count++] = {pidfd_, POLLIN, 0};
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(wake - Clock::now());
    const int timeout = int(std::clamp<std::int64_t>(wait.count(), 0, 1000));
    if (::poll(fds, count, pidfd_ < 0 && !reaped_ ? std::min(timeout, 50) : timeout) < 0)
      return false;
    nfds_t index = 0;
    for (OutputStream* stream : streams) {
      if (stream->pipe_fd < 0) continue;
      if (fds[index++].revents != 0) {
        stream->read_some();
        *idle_since = Clock::now();
      }
    }
    if (!reaped_ && (pidfd_ < 0 || (watch_child && fds[index].revents != 0))) {
      if (::waitpid(child_, &status_, pidfd_ < 0 ? WNOHANG : 0) == child_) reaped_ = true;
    }
    return reaped_;
  }

  void stop(const std::string& reason, std::optional<Clock::time_point>* kill_at) {
    timeout_reason_ = reason;
    kill_group(SIGTERM);
    *kill_at = after(kKillGraceMs);
  }

  static std::string format_ms(DurationMs ms) { return format_duration(ms); }

  Status finalize() {
    RunOutcome outcome;
    outcome.stdout_tail = out_.tail.text();
    outcome.stderr_tail = err_.tail.text();
    if (loop_.target.agent)
      outcome.usage = parse_usage(loop_.target.agent->provider, outcome.stdout_tail);
    if (WIFEXITED(status_)) outcome.exit_code = WEXITSTATUS(status_);
    if (WIFSIGNALED(status_)) outcome.signal = WTERMSIG(status_);
    if (!timeout_reason_.empty()) {
      outcome.status = RunStatus::kTimedOut;
      outcome.error = timeout_reason_;
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
    if (auto limited = note_usage_limit(outcome); !limited) return limited;
    return store_.finalize_run(claim_, outcome, wall_now());
  }

  // A failed agent run stopped by its provider's limit: the account cools
  // down, and the run does not use up an attempt (docs/execution.md).
  Status note_usage_limit(RunOutcome& outcome) {
    if (!loop_.target.agent || outcome.status != RunStatus::kFailed) return Ok{};
    const AgentTarget& agent = *loop_.target.agent;
    const TimeMs now = wall_now();
    const auto hit =
        classify_usage_limit(agent.provider, outcome.stdout_tail + "\n" + outcome.stderr_tail, now);
    if (!hit) return Ok{};
    std::string account = provider_name(agent.provider);
    if (!agent.auth_profile.empty()) account += ":" + agent.auth_profile;
    auto cooldown = store_.record_cooldown(account, hit->reset_at, hit->pattern, now);
    if (!cooldown) return cooldown.error();
    outcome.usage_limited = true;
    outcome.error = "usage limit reached (" + hit->pattern + "); " + account +
                    " cools down until " + format_time(cooldown->until_at);
    return Ok{};
  }

  Status finish_failed(const std::string& reason) {
    RunOutcome outcome;
    outcome.status = RunStatus::kFailed;
    outcome.error = scrubber_.scrub(reason);
    return store_.finalize_run(claim_, outcome, wall_now());
  }

  Store& store_;
  const SuperviseRequest& request_;
  Loop loop_;
  Run run_;
  Claim claim_;
  Scrubber scrubber_;
  OutputStream out_;
  OutputStream err_;
  std::vector<EnvVar> environment_;
  pid_t child_ = -1;
  int pidfd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string timeout_reason_;
};

}  // namespace

std::string run_directory(const std::string& home, const std::string& run_id) {
  return home + "/runs/" + run_id;
}

Status supervise(Store& store, const SuperviseRequest& request) {
  auto run = store.get_run(request.run_id);
  if (!run) return run.error();
  if (!run->has_value()) return not_found_error("no run has the id '" + request.run_id + "'");
  if ((*run)->status != RunStatus::kRunning || (*run)->claim_token != request.token) {
    return conflict_error("run " + request.run_id + " is not running under this claim token");
  }
  auto loop = store.get_loop((*run)->loop_id);
  if (!loop) return loop.error();
  if (!loop->has_value()) return not_found_error("the loop of run " + request.run_id + " is gone");
  Supervision supervision(store, request, **loop, **run);
  return supervision.run();
}

}  // namespace orrery
