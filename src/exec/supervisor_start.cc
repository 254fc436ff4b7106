#include "exec/supervisor_start.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "exec/descriptors.h"

namespace orrery {
namespace {

struct Pipe {
  int read = -1;
  int write = -1;
  ~Pipe() {
    close_fd(read);
    close_fd(write);
  }
};

bool open_pipe(Pipe& pipe) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  pipe.read = fds[0];
  pipe.write = fds[1];
  return true;
}

// In the (forked) child: becomes the supervisor, or reports why not.
[[noreturn]] void exec_supervisor(char* const* argv, char* const* envp, int log_fd, int token_fd,
                                  int report_fd, int max_fd) {
  setsid();
  // The daemon reads its signals from a signalfd with them blocked; the
  // supervisor starts with none blocked, whoever started it.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null >= 0) dup2(null, STDIN_FILENO);
  dup2(log_fd, STDOUT_FILENO);
  dup2(log_fd, STDERR_FILENO);
  close_on_exec_from_3(max_fd);
  fcntl(token_fd, F_SETFD, 0);  // the one descriptor the supervisor inherits
  execve(argv[0], argv, envp);
  const int error = errno;
  (void)!write(report_fd, &error, sizeof error);
  _exit(127);
}

}  // namespace

std::string self_executable() {
  char path[PATH_MAX] = {};
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  return length > 0 ? std::string(path, size_t(length)) : std::string("orrery");
}

Result<pid_t> start_supervisor(const SupervisorLaunch& launch) {
  const auto failed = [](const std::string& what, int error) {
    return internal_error("cannot start the supervisor: " + what + ": " + std::strerror(error));
  };
  const int log_fd = open(launch.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log_fd < 0) return failed("cannot open " + launch.log_path, errno);
  Pipe token, report;
  if (!open_pipe(token) || !open_pipe(report)) {
    const int error = errno;
    ::close(log_fd);
    return failed("cannot create a pipe", error);
  }
  // The token fits a pipe's buffer: written whole before the child exists.
  const ssize_t sent = write(token.write, launch.token.data(), launch.token.size());
  close_fd(token.write);
  if (sent != ssize_t(launch.token.size())) {
    ::close(log_fd);
    return failed("cannot pass the claim token", sent < 0 ? errno : EIO);
  }
  // argv is built before fork: nothing is allocated after it.
  std::vector<std::string> args{launch.executable};
  args.insert(args.end(), launch.global_args.begin(), launch.global_args.end());
  args.insert(args.end(),
              {launch.command, launch.run_id, "--token-fd", std::to_string(token.read)});
  args.insert(args.end(), launch.extra_args.begin(), launch.extra_args.end());
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::string db_variable = "ORRERY_DB=" + launch.db;
  std::vector<char*> envp;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    if (!launch.db.empty() && std::strncmp(*variable, "ORRERY_DB=", 10) == 0) continue;
    envp.push_back(*variable);
  }
  if (!launch.db.empty()) envp.push_back(db_variable.data());
  envp.push_back(nullptr);
  const int max_fd = descriptor_limit();

  // Through the report pipe come ints: a negative one is the detached
  // supervisor's pid (negated), a positive one the errno of a failed fork or
  // exec; end of file without a failure means the supervisor has exec'd.
  const pid_t child = fork();
  if (child < 0) {
    const int error = errno;
    ::close(log_fd);
    return failed("fork failed", error);
  }
  if (child == 0) {
    if (!launch.detach) {
      exec_supervisor(argv.data(), envp.data(), log_fd, token.read, report.write, max_fd);
    }
    const pid_t grandchild = fork();
    if (grandchild == 0) {
      exec_supervisor(argv.data(), envp.data(), log_fd, token.read, report.write, max_fd);
    }
    const int message = grandchild > 0 ? -int(grandchild) : errno;
    (void)!write(report.write, &message, sizeof message);
    _exit(0);
  }
  ::close(log_fd);
  close_fd(report.write);
  close_fd(token.read);
  pid_t supervisor = child;
  int failure = 0;
  int message = 0;
  while (read(report.read, &message, sizeof message) == ssize_t(sizeof message)) {
    if (message < 0) supervisor = -message;
    if (message > 0) failure = message;
  }
  if (launch.detach || failure != 0) waitpid(child, nullptr, 0);
  if (failure != 0) return failed("cannot run " + launch.executable, failure);
  return supervisor;
}

int wait_for_supervisor(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

Result<std::string> read_token_fd(int fd) {
  std::string token;
  char buffer[256];
  while (token.size() < 4096) {
    const ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      return usage_error("--token-fd " + std::to_string(fd) +
                         ": cannot read the claim token: " + std::strerror(errno));
    }
    if (got == 0) break;
    token.append(buffer, size_t(got));
  }
  ::close(fd);
  if (token.empty())
    return usage_error("--token-fd " + std::to_string(fd) + " gave no claim token");
  return token;
}

}  // namespace orrery
