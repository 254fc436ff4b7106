#include "exec/command_runner.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "exec/group_guard.h"
#include "exec/spawn.h"

namespace orrery {
namespace {

using Steady = std::chrono::steady_clock;

// Appends `piece` to the tail, keeping its last `cap` bytes.
void keep_tail(std::string& tail, const char* piece, size_t size, size_t cap) {
  tail.append(piece, size);
  if (tail.size() > 2 * cap) tail.erase(0, tail.size() - cap);
}

class SystemCommands final : public CommandRunner {
 public:
  Result<CommandResult> run(const CommandRequest& request) override {
    if (request.argv.empty()) return internal_error("a helper command needs an executable");
    const std::string path = path_of(request.env);
    auto executable = find_executable(request.argv[0], path, request.cwd);
    if (!executable) {
      return not_found_error("cannot run " + request.argv[0] + ": it is not found in the PATH");
    }
    auto spawned = spawn_in_group(request.argv, request.env, request.cwd);
    if (!spawned) return spawned.error();
    SpawnedProcess process = *spawned;
    auto guard = GroupGuard::start(process.pid);
    if (!guard) {
      discard(process);
      return guard.error();
    }
    const auto started = Steady::now();
    if (auto released = release(process, request.cwd, *executable); !released)
      return released.error();
    CommandResult result;
    drain(process, request, started, result);
    int status = 0;
    while (::waitpid(process.pid, &status, 0) < 0 && errno == EINTR) {
    }
    guard->finish();  // whatever the command left in its group goes, the guard with it
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    if (result.tail.size() > request.max_tail)
      result.tail.erase(0, result.tail.size() - request.max_tail);
    result.duration_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now() - started).count();
    return result;
  }

 private:
  // Reads both pipes to their end, or until the timeout kills the group.
  static void drain(SpawnedProcess& process, const CommandRequest& request,
                    Steady::time_point started, CommandResult& result) {
    pollfd fds[2] = {{process.stdout_fd, POLLIN, 0}, {process.stderr_fd, POLLIN, 0}};
    int open = 2;
    char buffer[65536];
    const bool ticking = request.on_tick && request.tick_ms > 0;
    auto next_tick = started + std::chrono::milliseconds(request.tick_ms);
    while (open > 0) {
      const auto now = Steady::now();
      std::int64_t wait_ms = -1;
      if (request.timeout_ms && !result.timed_out) {
        const auto spent =
            std::chrono::duration_cast<std::chrono::milliseconds>(now - started).count();
        wait_ms = std::max<std::int64_t>(0, *request.timeout_ms - spent);
      }
      if (ticking) {
        const auto to_tick = std::max<std::int64_t>(
            0, std::chrono::duration_cast<std::chrono::milliseconds>(next_tick - now).count());
        wait_ms = wait_ms < 0 ? to_tick : std::min(wait_ms, to_tick);
      }
      const int ready = ::poll(fds, 2, int(std::min<std::int64_t>(wait_ms, 1 << 30)));
      if (ready < 0 && errno == EINTR) continue;
      if (ticking && Steady::now() >= next_tick) {
        request.on_tick();
        next_tick = Steady::now() + std::chrono::milliseconds(request.tick_ms);
      }
      if (ready == 0) {
        const auto spent =
            std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now() - started).count();
        if (request.timeout_ms && !result.timed_out && spent >= *request.timeout_ms) {
          result.timed_out = true;  // the whole group goes
          ::kill(-process.pid, SIGKILL);
        }
        continue;
      }
      for (pollfd& fd : fds) {
        if (fd.fd < 0 || fd.revents == 0) continue;
        const ssize_t got = ::read(fd.fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
          ::close(fd.fd);
          fd.fd = -1;
          --open;
          continue;
        }
        if (fd.fd == process.stdout_fd && result.stdout_text.size() < request.max_stdout) {
          result.stdout_text.append(
              buffer,
              std::min<size_t>(size_t(got), request.max_stdout - result.stdout_text.size()));
        }
        keep_tail(result.tail, buffer, size_t(got), request.max_tail);
      }
    }
  }
};

}  // namespace

std::vector<EnvVar> process_environment() {
  std::vector<EnvVar> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const size_t equals = text.find('=');
    if (equals != std::string::npos)
      env.emplace_back(text.substr(0, equals), text.substr(equals + 1));
  }
  return env;
}

CommandRunner& system_commands() {
  static SystemCommands commands;
  return commands;
}

}  // namespace orrery
