#include "exec/group_guard.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace orrery {
namespace {

constexpr size_t kGuardStackBytes = 64 * 1024;

// The guard shares the caller's memory (clone with CLONE_VM: no copy of
// it, however large the caller) and so its thread-local errno: it makes
// its system calls directly, never through the C library, which would
// write errno on a failure.
#if defined(__x86_64__)
__attribute__((always_inline)) inline long raw_syscall(long number, long a = 0, long b = 0,
                                                       long c = 0, long d = 0) {
  long result;
  register long r10 asm("r10") = d;
  asm volatile("syscall"
               : "=a"(result)
               : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10)
               : "rcx", "r11", "memory");
  return result;
}
#elif defined(__aarch64__)
__attribute__((always_inline)) inline long raw_syscall(long number, long a = 0, long b = 0,
                                                       long c = 0, long d = 0) {
  register long x8 asm("x8") = number;
  register long x0 asm("x0") = a;
  register long x1 asm("x1") = b;
  register long x2 asm("x2") = c;
  register long x3 asm("x3") = d;
  asm volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
  return x0;
}
#else
#error "exec/group_guard.cc: raw system calls are written for x86-64 and aarch64 only"
#endif

struct GuardPlan {
  pid_t pgid;
  int read_end;
};

// The guard's whole life, on its own stack: it joins the group, keeps only
// the pipe's read end, waits for it to close and kills the group.
__attribute__((no_sanitize("address", "undefined"))) int guard(void* argument) {
  const GuardPlan plan = *static_cast<const GuardPlan*>(argument);
  const unsigned long all_signals = ~0UL;
  raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, long(&all_signals), 0, sizeof all_signals);
  raw_syscall(SYS_setpgid, 0, plan.pgid);
  raw_syscall(SYS_dup3, plan.read_end, 0, 0);  // the read end as fd 0, kept across nothing
  if (raw_syscall(SYS_close_range, 1, long(~0U), 0) != 0) {
    for (long fd = 1; fd < 65536; ++fd) raw_syscall(SYS_close, fd);
  }
  char byte = 0;
  while (raw_syscall(SYS_read, 0, long(&byte), 1) == -EINTR) {
  }
  raw_syscall(SYS_kill, -plan.pgid, SIGKILL);
  raw_syscall(SYS_exit_group, 0);
  return 0;
}

}  // namespace

Result<GroupGuard> GroupGuard::start(pid_t pgid) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return internal_error(std::string("cannot make a guard's pipe: ") + std::strerror(errno));
  void* stack = mmap(nullptr, kGuardStackBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) {
    const int error = errno;
    close(fds[0]);
    close(fds[1]);
    return internal_error(std::string("cannot make a guard's stack: ") + std::strerror(error));
  }
  // Read by the guard before it does anything else; it lives on its stack.
  auto* plan = static_cast<GuardPlan*>(stack);
  *plan = GuardPlan{pgid, fds[0]};
  char* top = static_cast<char*>(stack) + kGuardStackBytes;
  const pid_t pid = clone(guard, top, CLONE_VM | SIGCHLD, plan);
  const int error = errno;
  close(fds[0]);
  if (pid < 0) {
    close(fds[1]);
    munmap(stack, kGuardStackBytes);
    return internal_error(std::string("cannot start a process group's guard: ") +
                          std::strerror(error));
  }
  setpgid(pid, pgid);  // also from here, so that it is in the group when release() runs
  return GroupGuard(pid, pgid, fds[1], stack);
}

GroupGuard::GroupGuard(GroupGuard&& other) noexcept
    : pid_(other.pid_), pgid_(other.pgid_), lifeline_(other.lifeline_), stack_(other.stack_) {
  other.pid_ = -1;
  other.lifeline_ = -1;
  other.stack_ = nullptr;
}

GroupGuard::~GroupGuard() { finish(); }

void GroupGuard::finish() {
  if (pid_ > 0) {
    ::kill(-pgid_, SIGKILL);
    ::kill(pid_, SIGKILL);  // had it not joined the group yet
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }
  if (lifeline_ >= 0) {
    ::close(lifeline_);
    lifeline_ = -1;
  }
  if (stack_ != nullptr) {  // the guard is reaped: nothing runs on it
    munmap(stack_, kGuardStackBytes);
    stack_ = nullptr;
  }
}

}  // namespace orrery
