#include "run_binary.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace orrery {
namespace {

// Closes the descriptor it holds when it goes out of scope.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }

  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

[[noreturn]] void fail(const std::string& what, int error) {
  throw std::runtime_error(what + ": " + std::strerror(error));
}

void make_pipe(Fd& read_end, Fd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) fail("pipe2", errno);
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
}

// The test's environment with `extra` added; an extra entry replaces an
// inherited one of the same name.
std::vector<std::string> child_environment(const EnvVars& extra) {
  std::vector<std::string> entries;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const std::string name = text.substr(0, text.find('='));
    bool replaced = false;
    for (const auto& [key, value] : extra) replaced = replaced || key == name;
    if (!replaced) entries.push_back(text);
  }
  for (const auto& [key, value] : extra) entries.push_back(key + "=" + value);
  return entries;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  for (std::string& s : strings) result.push_back(s.data());
  result.push_back(nullptr);
  return result;
}

// Reads both pipes until each reaches end of file.
void drain(Fd& out_fd, Fd& err_fd, std::string& out, std::string& err) {
  char buffer[65536];
  while (out_fd.get() >= 0 || err_fd.get() >= 0) {
    pollfd fds[2] = {{out_fd.get(), POLLIN, 0}, {err_fd.get(), POLLIN, 0}};  // fd -1: ignored
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      fail("poll", errno);
    }
    Fd* sources[2] = {&out_fd, &err_fd};
    std::string* sinks[2] = {&out, &err};
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, size_t(n));
      } else if (n == 0) {
        sources[i]->reset();  // end of file
      } else if (errno != EINTR && errno != EAGAIN) {
        fail("read", errno);
      }
    }
  }
}

}  // namespace

RunResult run_program(const std::string& program, const std::vector<std::string>& args,
                      const EnvVars& env, const std::string& cwd) {
  Fd out_read, out_write, err_read, err_write;
  make_pipe(out_read, out_write);
  make_pipe(err_read, err_write);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  // dup2 clears close-on-exec on the target; the pipe ends themselves close at exec.
  posix_spawn_file_actions_adddup2(&actions, out_write.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_write.get(), STDERR_FILENO);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());

  std::vector<std::string> argv_strings{program};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<std::string> env_strings = child_environment(env);
  std::vector<char*> argv = pointers(argv_strings);
  std::vector<char*> envp = pointers(env_strings);

  pid_t pid = 0;
  const int spawned =
      posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) fail("posix_spawn " + program, spawned);

  // Only the child may hold the write ends, or the reads would never see EOF.
  out_write.reset();
  err_write.reset();

  RunResult result;
  drain(out_read, err_read, result.out, result.err);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) fail("waitpid", errno);
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  return result;
}

const char* orrery_binary() { return ORRERY_BINARY_PATH; }

RunResult run_orrery(const std::vector<std::string>& args, const EnvVars& env) {
  return run_program(ORRERY_BINARY, args, env);
}

RunResult run_orrery_in(const std::string& cwd, const std::vector<std::string>& args,
                        const EnvVars& env) {
  return run_program(ORRERY_BINARY, args, env, cwd);
}

std::string describe(const std::vector<std::string>& args, const RunResult& result) {
  std::string text = "orrery";
  for (const std::string& arg : args) text += " '" + arg + "'";
  return text + "\n  exit " + std::to_string(result.exit_code) +
         (result.term_signal != 0 ? " (signal " + std::to_string(result.term_signal) + ")" : "") +
         "\n  stdout: " + result.out + "\n  stderr: " + result.err;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    result.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return result;
}

bool has_shape(const std::string& text, const std::string& pattern) {
  if (text.size() != pattern.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool digit = text[i] >= '0' && text[i] <= '9';
    if (pattern[i] == '9' ? !digit : text[i] != pattern[i]) return false;
  }
  return true;
}

std::int64_t time_ms(const std::string& text) {
  using namespace std::chrono;
  const sys_days date = year_month_day{year{std::stoi(text.substr(0, 4))},
                                       month{unsigned(std::stoi(text.substr(5, 2)))},
                                       day{unsigned(std::stoi(text.substr(8, 2)))}};
  const std::int64_t seconds = std::stoi(text.substr(11, 2)) * 3600 +
                               std::stoi(text.substr(14, 2)) * 60 + std::stoi(text.substr(17, 2));
  return duration_cast<milliseconds>(date.time_since_epoch()).count() + seconds * 1000 +
         std::stoi(text.substr(20, 3));
}

}  // namespace orrery
