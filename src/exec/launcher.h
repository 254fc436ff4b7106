// Launcher: the one way claimed work gets its supervisor (docs/architecture.md,
// "Claimed work"): a loop's run claimed by the daemon, a runner or `orrery
// trigger`, and a workflow step's attempt reserved by its driver. It makes
// the work's directory, starts the supervisor — forked by the fork server
// (exec/supervisor_forker.h) while one lives, otherwise exec'd (`orrery
// supervise` / `supervise-step`, exec/supervisor_start.h) in a new session
// — and records it on the claim.
//
// Invariants:
// - work whose supervisor cannot start (no directory, fork or exec
//   failing) is finished `failed` with the reason at once: nothing is left
//   running behind a supervisor that never existed;
// - an exec'd supervisor is recorded on the claim before it records
//   anything itself, so that one which dies at once is noticed by recovery;
//   a forked one is recorded when the caller asks (record_forked), else the
//   caller, which watches it, records it only if it ends first.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "core/result.h"
#include "exec/clock.h"
#include "exec/supervisor_forker.h"
#include "store/claim_ledger.h"

namespace orrery {

// Where a supervisor finds the store: the data directory and the --db URL
// given to the starter (empty: the default database).
struct StoreLocation {
  std::string home;
  std::string db;
};

// A piece of claimed work to start a supervisor for.
struct WorkLaunch {
  Claim claim;              // its kind, id, claimant and token
  DurationMs lease_ms = 0;  // the claim's lease (how long the supervisor may wait for the store)
  bool record_forked = true;
  bool detach = true;  // exec'd: adopted by init, or a child of the caller to wait for
};

// A supervisor that started; the caller owns `pidfd` (-1 when exec'd: watch the pid).
struct StartedSupervisor {
  pid_t pid = 0;
  int pidfd = -1;
  std::optional<TimeMs> started_at;
};

class Launcher {
 public:
  virtual ~Launcher() = default;
  // Starts the work's supervisor (the rules above). On failure the work is
  // finished failed and the Error says why (and whether it could be).
  virtual Result<StartedSupervisor> launch(const WorkLaunch& work) = 0;
};

class SupervisorLauncher final : public Launcher {
 public:
  // `forker` null: every supervisor is exec'd.
  SupervisorLauncher(ClaimLedger& ledger, StoreLocation location,
                     SupervisorForker* forker = nullptr, Clock& clock = real_clock());
  Result<StartedSupervisor> launch(const WorkLaunch& work) override;
  // The fork server had been started and is gone: supervisors are exec'd now.
  bool forker_gone() const { return forker_ != nullptr && forker_->server_gone(); }

 private:
  Result<StartedSupervisor> exec_supervisor(const WorkLaunch& work, const std::string& dir);

  ClaimLedger& ledger_;
  StoreLocation location_;
  SupervisorForker* forker_;
  Clock& clock_;
};

// Finishes claimed work whose supervisor could not start as `failed`, with
// the reason; the Error says so (and whether the work could be marked).
Error fail_unstarted(ClaimLedger& ledger, const Claim& claim, const Error& why, TimeMs now);

// The directory of a piece of claimed work: its run directory, or its
// step's directory in its workflow run.
std::string work_directory(const std::string& home, const Claim& claim);

// In a forked supervisor: makes the work's directory `dir` and points stdout
// and stderr at its supervisor.log. On failure the caller fails the work
// (fail_unstarted).
Status start_in_work_log(const std::string& dir);

// Starts `orrery drive-workflow RUN` in a new session, for a workflow run no
// process drives (its output goes to the run's driver.log).
Status start_detached_driver(const StoreLocation& location, const std::string& run_id);

// Starts `orrery drive-queue REPO --target BRANCH` in a new session, for a
// merge queue with work and no driver (its output goes to
// <home>/worktrees/queue/driver.log).
Status start_detached_queue_driver(const StoreLocation& location, const std::string& repo,
                                   const std::string& target);

}  // namespace orrery
