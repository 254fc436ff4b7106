// A fork server for supervisors (docs/execution.md, "Starting a run"): a
// small process the daemon forks before it opens the database, which then
// forks one supervisor per request, without exec. It keeps the next
// supervisor forked and prepared (its store open) ahead of the request, the
// spare, and forks the one after only once it has answered: a request is
// answered without a fork, and the supervisor starts on its run at once.
//
// Invariants:
// - the server holds no database connection and no descriptor but its end of
//   the socket and its spare's (a SQLite connection must never cross a
//   fork: a spare opens its own after the fork);
// - a supervisor it forks starts as an exec'd one (exec/supervisor_start.h):
//   a new session, no signal blocked or handled, stdin, stdout and stderr on
//   /dev/null (the runner points the last two at the run's log), no other
//   descriptor; the server does no file work of its own, so an answer costs
//   one message to the spare;
// - each answer carries a pidfd opened while the supervisor could not yet be
//   reaped, so the caller watches the very process it asked for;
// - the server exits when the caller's end of the socket closes (the daemon
//   exited or was killed); the supervisors it forked run on.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>

#include "core/result.h"
#include "core/time.h"
#include "core/work_kind.h"

namespace orrery {

// What a forked supervisor is asked to do: supervise the claimed work.
struct ForkRequest {
  std::string run_id;  // the claim's id: a run's, or a step attempt's dispatch id
  std::string claimed_by;
  std::string token;
  std::string run_dir;      // where its log and the run's logs go
  DurationMs lease_ms = 0;  // the run's lease (how long it may wait for the database)
  WorkKind kind = WorkKind::kLoopRun;
};

// A supervisor the server forked; the caller owns `pidfd`.
struct ForkedSupervisor {
  pid_t pid = 0;
  int pidfd = -1;
  std::optional<TimeMs> started_at;  // read by the server before it could be reaped
};

class SupervisorForker {
 public:
  // The supervisor's work on its request; its exit status.
  using Runner = std::function<int(const ForkRequest&)>;
  // Run in each forked supervisor before its request is known (it may open
  // the store); what it returns runs the request.
  using Prepare = std::function<Runner()>;

  // Forks the server. Call it before opening any database.
  static Result<SupervisorForker> start(Prepare prepare);

  SupervisorForker(SupervisorForker&& other) noexcept;
  SupervisorForker& operator=(SupervisorForker&&) = delete;
  SupervisorForker(const SupervisorForker&) = delete;
  ~SupervisorForker();  // closes the socket: the server exits

  // Asks for one supervisor. An Error names why none was started (a fork
  // that failed); when the server itself is gone, `server_gone()` is true
  // from then on.
  Result<ForkedSupervisor> fork_supervisor(const ForkRequest& request);
  bool server_gone() const { return socket_ < 0; }
  pid_t server_pid() const { return server_; }

 private:
  SupervisorForker(int socket, pid_t server) : socket_(socket), server_(server) {}
  void lose_server();

  int socket_ = -1;
  pid_t server_ = -1;
};

}  // namespace orrery
