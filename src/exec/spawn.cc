#include "exec/spawn.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace orrery {
namespace {

// What the child reports through the close-on-exec pipe when it cannot exec.
struct ChildFailure {
  int stage = 0;  // 1: chdir, 2: exec
  int error = 0;
};

[[noreturn]] void fail_in_child(int report_fd, int stage) {
  const ChildFailure failure{stage, errno};
  (void)!write(report_fd, &failure, sizeof failure);
  _exit(127);
}

void close_pipe(int fds[2]) {
  if (fds[0] >= 0) close(fds[0]);
  if (fds[1] >= 0) close(fds[1]);
}

// An in-memory file holding `text`, positioned at its start.
int memory_file(const std::string& text) {
  const int fd = memfd_create("orrery-stdin", MFD_CLOEXEC);
  if (fd < 0) return -1;
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n <= 0) {
      close(fd);
      return -1;
    }
    written += size_t(n);
  }
  lseek(fd, 0, SEEK_SET);
  return fd;
}

}  // namespace

std::vector<std::string> target_argv(const Target& target) {
  if (target.shell) return {"/bin/sh", "-c", target.command_line};
  return target.argv;
}

Result<SpawnedProcess> spawn_in_group(const std::vector<std::string>& argv,
                                      const std::vector<EnvVar>& env, const std::string& cwd,
                                      const std::optional<std::string>& stdin_text) {
  if (argv.empty()) return usage_error("nothing to run: the target has no executable");
  // Everything the child needs is prepared before fork: no allocation after.
  std::vector<std::string> env_strings;
  for (const auto& [key, value] : env) env_strings.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (std::string& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (std::string& arg : args) argp.push_back(arg.data());
  argp.push_back(nullptr);

  const int input = stdin_text ? memory_file(*stdin_text) : -1;
  if (stdin_text && input < 0) {
    return internal_error(std::string("cannot prepare the target's stdin: ") +
                          std::strerror(errno));
  }
  int out[2] = {-1, -1}, err[2] = {-1, -1}, report[2] = {-1, -1};
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 || pipe2(report, O_CLOEXEC) != 0) {
    close_pipe(out);
    close_pipe(err);
    close_pipe(report);
    return internal_error(std::string("cannot create pipes: ") + std::strerror(errno));
  }
  const pid_t pid = fork();
  if (pid < 0) {
    close_pipe(out);
    close_pipe(err);
    close_pipe(report);
    return internal_error(std::string("cannot fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    setpgid(0, 0);
    dup2(input >= 0 ? input : open("/dev/null", O_RDONLY), STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    // Nothing else the supervisor holds open reaches the target.
    syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) fail_in_child(report[1], 1);
    execvpe(argp[0], argp.data(), envp.data());
    fail_in_child(report[1], 2);
  }
  setpgid(pid, pid);  // also from the parent, so the group exists before we signal it
  if (input >= 0) close(input);
  close(out[1]);
  close(err[1]);
  close(report[1]);
  ChildFailure failure;
  const ssize_t got = read(report[0], &failure, sizeof failure);
  close(report[0]);
  if (got == ssize_t(sizeof failure)) {
    close(out[0]);
    close(err[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (failure.stage == 1) {
      return usage_error("working directory " + cwd +
                         " is not usable: " + std::strerror(failure.error));
    }
    if (failure.error == ENOENT) return usage_error("executable not found in PATH: " + argv[0]);
    return usage_error("cannot execute " + argv[0] + ": " + std::strerror(failure.error));
  }
  return SpawnedProcess{pid, out[0], err[0]};
}

}  // namespace orrery
