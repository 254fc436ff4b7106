#include "exec/spawn.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <memory>
#include <system_error>
#include <thread>

#include "exec/descriptors.h"

namespace orrery {
namespace {

// What the child reports through the close-on-exec pipe when it cannot exec.
struct ChildFailure {
  int stage = 0;  // 1: chdir, 2: exec
  int error = 0;
};

constexpr const char* kDefaultPath = "/usr/local/bin:/usr/bin:/bin";

// The held child's stack: it calls a few system calls and nothing else.
constexpr size_t kChildStackBytes = 64 * 1024;

[[noreturn]] void fail_in_child(int report_fd, int stage) {
  const ChildFailure failure{stage, errno};
  (void)!write(report_fd, &failure, sizeof failure);
  _exit(127);
}

void close_pipe(int fds[2]) {
  close_fd(fds[0]);
  close_fd(fds[1]);
}

// An in-memory file holding `text`, positioned at its start.
int memory_file(const std::string& text) {
  const int fd = memfd_create("orrery-stdin", MFD_CLOEXEC);
  if (fd < 0) return -1;
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(fd);
      return -1;
    }
    written += size_t(n);
  }
  lseek(fd, 0, SEEK_SET);
  return fd;
}

// The kernel's struct sigaction (x86-64 and the generic layout).
struct KernelSigaction {
  void (*handler)(int);
  unsigned long flags;
  void (*restorer)();
  std::uint64_t mask;
};

// In the child: the target starts with no blocked signal and default
// dispositions, whatever the supervisor (or a daemon, or whoever started us)
// set. The system call, not sigaction(3): the C library refuses to touch the
// signals it reserves for itself (32 and 33), yet an ignored one is inherited
// through exec like any other.
void reset_signals() {
  const KernelSigaction fallback{SIG_DFL, 0, nullptr, 0};
  for (int signal = 1; signal <= 64; ++signal) {
    syscall(SYS_rt_sigaction, signal, &fallback, nullptr, sizeof fallback.mask);
  }
  const std::uint64_t none = 0;
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, nullptr, sizeof none);
}

bool is_executable_file(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && access(path.c_str(), X_OK) == 0;
}

// Everything the held child needs, prepared before it exists: the child
// shares the supervisor's memory until it execs and allocates nothing.
struct ChildPlan {
  ChildPlan(const std::vector<std::string>& argv, const std::vector<EnvVar>& env,
            std::string directory, std::string path)
      : args(argv), cwd(std::move(directory)), executable(std::move(path)) {
    for (const auto& [key, value] : env) env_strings.push_back(key + "=" + value);
    for (std::string& entry : env_strings) envp.push_back(entry.data());
    envp.push_back(nullptr);
    for (std::string& arg : args) argp.push_back(arg.data());
    argp.push_back(nullptr);
  }

  std::vector<std::string> args, env_strings;
  std::vector<char*> argp, envp;
  std::string cwd, executable;
  int max_fd = descriptor_limit();
  int input = -1;
  int out[2] = {-1, -1}, err[2] = {-1, -1}, report[2] = {-1, -1}, go[2] = {-1, -1};
  int started[2] = {-1, -1};  // the child's pid, once it is held; or -errno
  pid_t cloned = -1;          // clone's result, for the caller once the holder is joined
  std::unique_ptr<char[]> stack{new char[kChildStackBytes]};
};

// The held child, on its own stack in the supervisor's memory (clone with
// CLONE_VM): only system calls, on descriptors of its own table.
int run_held_child(void* argument) {
  const ChildPlan& plan = *static_cast<const ChildPlan*>(argument);
  // The parent's ends: with its own copy of the go pipe's write end the
  // child would never see end of file if the supervisor died holding it.
  for (int fd : {plan.go[1], plan.out[0], plan.err[0], plan.report[0], plan.started[0]}) close(fd);
  setpgid(0, 0);
  reset_signals();
  dup2(plan.input >= 0 ? plan.input : open("/dev/null", O_RDONLY | O_CLOEXEC), STDIN_FILENO);
  dup2(plan.out[1], STDOUT_FILENO);
  dup2(plan.err[1], STDERR_FILENO);
  // Nothing else the supervisor holds open reaches the target.
  close_on_exec_from_3(plan.max_fd);
  const pid_t self = getpid();
  if (write(plan.started[1], &self, sizeof self) != ssize_t(sizeof self)) _exit(127);
  // Held until the supervisor has recorded this process (docs/execution.md).
  char go_byte = 0;
  ssize_t got;
  do {
    got = read(plan.go[0], &go_byte, 1);
  } while (got < 0 && errno == EINTR);
  if (got != 1) _exit(127);
  if (!plan.cwd.empty() && chdir(plan.cwd.c_str()) != 0) fail_in_child(plan.report[1], 1);
  execve(plan.executable.c_str(), plan.argp.data(), plan.envp.data());
  fail_in_child(plan.report[1], 2);
}

// The holder thread: it clones the child and is suspended (CLONE_VFORK)
// until the child execs or exits, so the child may use this thread's errno
// and the plan it keeps alive; then it closes the `started` write end, so a
// child that ended before saying its pid reads as end of file.
void hold_child(std::shared_ptr<ChildPlan> plan) {
  char* stack_top = plan->stack.get() + kChildStackBytes;
  const pid_t pid = clone(run_held_child, stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD, plan.get());
  plan->cloned = pid;
  if (pid < 0) {
    const pid_t failure = -errno;
    (void)!write(plan->started[1], &failure, sizeof failure);
  }
  close(plan->started[1]);
}

// Starts the holder with every signal blocked: the child inherits the mask,
// so no handler of the supervisor's runs on the child's stack before
// reset_signals() puts every disposition back to the default.
Result<std::shared_ptr<HolderThread>> start_holder(const std::shared_ptr<ChildPlan>& plan) {
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  Result<std::shared_ptr<HolderThread>> started = std::shared_ptr<HolderThread>();
  try {
    started = std::make_shared<HolderThread>(std::thread(hold_child, plan));
  } catch (const std::system_error& error) {
    started = internal_error(std::string("cannot start the target: ") + error.what());
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return started;
}

void join_holder(SpawnedProcess& process) {
  if (process.holder) process.holder->join();
  process.holder.reset();
}

// The child's pid, or -errno when it could not be created, or 0 when it
// ended before it said.
pid_t read_started(int fd) {
  pid_t value = 0;
  ssize_t got;
  do {
    got = read(fd, &value, sizeof value);
  } while (got < 0 && errno == EINTR);
  return got == ssize_t(sizeof value) ? value : 0;
}

}  // namespace

std::vector<std::string> target_argv(const Target& target) {
  if (target.shell) return {"/bin/sh", "-c", target.command_line};
  return target.argv;
}

std::string path_of(const std::vector<EnvVar>& env) {
  std::optional<std::string> path;
  for (const auto& [key, value] : env) {
    if (key == "PATH") path = value;
  }
  return path ? *path : kDefaultPath;
}

std::optional<std::string> find_executable(const std::string& name, const std::string& path,
                                           const std::string& cwd) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) return name;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    const std::string_view entry = std::string_view(path).substr(start, end - start);
    std::string candidate;
    if (entry.empty() || entry[0] != '/') {  // relative, or empty: the working directory
      if (!cwd.empty()) candidate.append(cwd).append("/");
      candidate.append(entry.empty() ? std::string_view(".") : entry);
    } else {
      candidate.append(entry);
    }
    candidate.append("/").append(name);
    if (is_executable_file(candidate)) return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

Result<SpawnedProcess> spawn_in_group(const std::vector<std::string>& argv,
                                      const std::vector<EnvVar>& env, const std::string& cwd,
                                      const std::optional<std::string>& stdin_text) {
  if (argv.empty()) return usage_error("nothing to run: the target has no executable");
  const auto executable = find_executable(argv[0], path_of(env), cwd);
  if (!executable) return usage_error("executable not found in PATH: " + argv[0]);
  auto plan = std::make_shared<ChildPlan>(argv, env, cwd, *executable);
  plan->input = stdin_text ? memory_file(*stdin_text) : -1;
  if (stdin_text && plan->input < 0) {
    return internal_error(std::string("cannot prepare the target's stdin: ") +
                          std::strerror(errno));
  }
  int* pipes[] = {plan->out, plan->err, plan->report, plan->go, plan->started};
  for (int* fds : pipes) {
    if (pipe2(fds, O_CLOEXEC) == 0) continue;
    const int error = errno;
    for (int* opened : pipes) close_pipe(opened);
    close_fd(plan->input);
    return internal_error(std::string("cannot create pipes: ") + std::strerror(error));
  }
  auto holder = start_holder(plan);
  if (!holder) {
    for (int* fds : pipes) close_pipe(fds);
    close_fd(plan->input);
    return holder.error();
  }
  // The holder owns the write end of `started` from here on, and the child
  // reads the plan until it execs: it is not written to again.
  const pid_t pid = read_started(plan->started[0]);
  for (int fd :
       {plan->started[0], plan->input, plan->out[1], plan->err[1], plan->report[1], plan->go[0]}) {
    if (fd >= 0) close(fd);
  }
  if (pid <= 0) {
    for (int fd : {plan->out[0], plan->err[0], plan->report[0], plan->go[1]}) close(fd);
    (*holder)->join();
    if (plan->cloned > 0) waitpid(plan->cloned, nullptr, 0);  // ended before it said its pid
    return internal_error(pid < 0 ? std::string("cannot start the target: ") + std::strerror(-pid)
                                  : std::string("cannot start the target: it ended at once"));
  }
  setpgid(pid, pid);  // also from here, so the group exists before we signal it
  return SpawnedProcess{pid, plan->out[0], plan->err[0], plan->go[1], plan->report[0], *holder};
}

Status release(SpawnedProcess& process, const std::string& cwd, const std::string& executable) {
  const char go_byte = 1;
  ssize_t sent;
  do {
    sent = write(process.release_fd, &go_byte, 1);
  } while (sent < 0 && errno == EINTR);
  close_fd(process.release_fd);
  ChildFailure failure;
  ssize_t got;
  do {
    got = read(process.report_fd, &failure, sizeof failure);
  } while (got < 0 && errno == EINTR);
  close_fd(process.report_fd);
  if (got != ssize_t(sizeof failure)) {  // the exec happened
    join_holder(process);
    return Ok{};
  }
  close_fd(process.stdout_fd);
  close_fd(process.stderr_fd);
  int status = 0;
  waitpid(process.pid, &status, 0);
  join_holder(process);
  if (failure.stage == 1) {
    return usage_error("working directory " + cwd +
                       " is not usable: " + std::strerror(failure.error));
  }
  // Where the file would be: a bare name was looked up in PATH and is not
  // checked again here; a relative path is taken from the target's directory.
  const std::string path = executable.find('/') == std::string::npos  ? std::string()
                           : executable.front() == '/' || cwd.empty() ? executable
                                                                      : cwd + "/" + executable;
  if (failure.error == ENOENT && !path.empty() && ::access(path.c_str(), F_OK) == 0) {
    // The file is there: what exec could not find is the interpreter its
    // first line (#!) names.
    return usage_error("cannot execute " + executable +
                       ": the interpreter its #! line names was not found");
  }
  if (failure.error == ENOENT) return usage_error("executable not found: " + executable);
  return usage_error("cannot execute " + executable + ": " + std::strerror(failure.error));
}

void discard(SpawnedProcess& process) {
  if (process.pid > 0) {
    kill(-process.pid, SIGKILL);
    int status = 0;
    waitpid(process.pid, &status, 0);
  }
  join_holder(process);
  for (int* fd :
       {&process.release_fd, &process.report_fd, &process.stdout_fd, &process.stderr_fd}) {
    close_fd(*fd);
  }
}

}  // namespace orrery
