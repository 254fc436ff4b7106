// GroupGuard: a process group that cannot outlive the process that started
// it (docs/workers.md, "The merge queue"). A helper command (git, a merge
// queue's verification) runs in its own group; a guard cloned beside it
// (sharing the caller's memory, so nothing is copied) joins that group and waits on a pipe whose
// only writer is the caller. When the caller ends, however it ends (kill -9 included), the kernel
// closes the pipe, the guard's read returns, and it kills the whole group, itself with it.
//
// Invariants: the guard joins the group before the command is let run (it
// is started while the command is held); it holds no descriptor but the
// pipe's read end, blocks every signal, and makes only system calls; while
// the guard lives the group id cannot be reused, so killing the group is
// never a stranger's; the caller reaps it (finish, or the destructor), so
// the caller must not reap children it did not start (waitpid(-1)) while a
// guard lives — orrery's reapers run on the thread that runs the commands.
#pragma once

#include <sys/types.h>

#include "core/result.h"

namespace orrery {

class GroupGuard {
 public:
  // Forks the guard of group `pgid` (which must exist, in this session).
  static Result<GroupGuard> start(pid_t pgid);

  GroupGuard(GroupGuard&& other) noexcept;
  GroupGuard& operator=(GroupGuard&&) = delete;
  GroupGuard(const GroupGuard&) = delete;
  GroupGuard& operator=(const GroupGuard&) = delete;
  ~GroupGuard();

  // The command is over: the group (the guard with it) is killed and the
  // guard reaped.
  void finish();

  pid_t pid() const { return pid_; }

 private:
  GroupGuard(pid_t pid, pid_t pgid, int lifeline, void* stack)
      : pid_(pid), pgid_(pgid), lifeline_(lifeline), stack_(stack) {}

  pid_t pid_ = -1;
  pid_t pgid_ = -1;
  int lifeline_ = -1;      // the pipe's write end; the caller's only
  void* stack_ = nullptr;  // the guard's, unmapped once it is reaped
};

}  // namespace orrery
