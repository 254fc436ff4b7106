// What a helper command's group guard costs (docs/benchmarks.md, "Helper
// commands"). Three timings, interleaved, each the median of ROUNDS rounds
// of COUNT commands:
//   floor    posix_spawn of /bin/true and its wait: the least a command costs;
//   command  system_commands().run of /bin/true: a command as orrery runs git
//            or a verification (its own group, pipes, the guard, the reaping);
//   guard    GroupGuard::start and finish alone, on a group that exists.
// Usage: command_runner_bench [COUNT] [ROUNDS]
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "exec/command_runner.h"
#include "exec/group_guard.h"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

double microseconds_each(int count, const std::function<void()>& once) {
  const auto started = Clock::now();
  for (int i = 0; i < count; ++i) once();
  const std::chrono::duration<double, std::micro> took = Clock::now() - started;
  return took.count() / count;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

void spawn_true() {
  pid_t pid = 0;
  char path[] = "/bin/true";
  char* argv[] = {path, nullptr};
  if (posix_spawn(&pid, path, nullptr, nullptr, argv, environ) != 0) std::abort();
  int status = 0;
  waitpid(pid, &status, 0);
}

void run_true() {
  static const orrery::CommandRequest request = [] {
    orrery::CommandRequest made;
    made.argv.emplace_back("/bin/true");
    made.cwd.push_back('/');
    return made;
  }();
  auto result = orrery::system_commands().run(request);
  if (!result || !result->succeeded()) std::abort();
}

// A group to guard: a sleeping child that leads its own group.
pid_t sleeping_group() {
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    pause();
    _exit(0);
  }
  setpgid(pid, pid);
  return pid;
}

}  // namespace

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 500;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  std::vector<double> floor, command, guard;
  for (int round = 0; round < rounds; ++round) {
    floor.push_back(microseconds_each(count, spawn_true));
    command.push_back(microseconds_each(count, run_true));
    // Each guard kills its group when it finishes: one group a guard.
    std::vector<pid_t> groups;
    for (int i = 0; i < count; ++i) groups.push_back(sleeping_group());
    std::size_t next = 0;
    guard.push_back(microseconds_each(count, [&] {
      auto started = orrery::GroupGuard::start(groups[next++]);
      if (!started) std::abort();
      started->finish();
    }));
    for (const pid_t pid : groups) waitpid(pid, nullptr, 0);
  }
  std::printf("commands %d, rounds %d (medians, microseconds a command)\n", count, rounds);
  std::printf("floor   posix_spawn /bin/true + wait   %8.1f\n", median(floor));
  std::printf("command system_commands().run          %8.1f  (%.2f x floor)\n", median(command),
              median(command) / median(floor));
  std::printf("guard   start + finish alone           %8.1f  (%.2f x floor)\n", median(guard),
              median(guard) / median(floor));
  return 0;
}
