// Starting a run's supervisor, `orrery supervise RUN --token-fd N`, in a new
// session (docs/execution.md), for `orrery trigger` and the daemon alike.
//
// Invariants: the claim token reaches the supervisor through an inherited
// pipe (descriptor N), never argv or the environment; its stdin is
// /dev/null and its stdout and stderr go to the log file given; no other
// descriptor of the caller reaches it; a failure to fork, to open the log or
// to exec is an Error naming the reason, so the caller can fail the claimed
// run at once. Nothing is allocated after fork.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "core/result.h"

namespace orrery {

struct SupervisorLaunch {
  std::string executable;                // the orrery binary
  std::vector<std::string> global_args;  // e.g. --home H, before `supervise`
  std::string run_id;                    // the run's id, or a step attempt's dispatch id
  std::string token;
  std::string log_path;  // the supervisor's own stdout and stderr
  bool detach = true;    // adopted by init (true), or a child of the caller to wait for
                         // The database location, passed as ORRERY_DB in the supervisor's
                         // environment, never on its command line (which every user can read): a
                         // PostgreSQL URL may hold a password. Empty: the environment as it is.
  std::string db;
  // The internal command: supervise (a run), supervise-step (a step's
  // attempt) or drive-workflow (a workflow run's driver; no token).
  std::string command = "supervise";
  // Arguments after the id (drive-queue: --target BRANCH).
  std::vector<std::string> extra_args = {};
};

// The supervisor's pid once it has exec'd.
Result<pid_t> start_supervisor(const SupervisorLaunch& launch);

// Waits for a supervisor started with detach = false; its exit status.
int wait_for_supervisor(pid_t pid);

// This process's executable (/proc/self/exe), or "orrery".
std::string self_executable();

// Reads a claim token from descriptor `fd` (until end of file) and closes it.
Result<std::string> read_token_fd(int fd);

}  // namespace orrery
