// ClaimKeeper: a supervisor's hold on its run's claim (docs/execution.md,
// "Heartbeats and finishing"). It renews the lease every lease/3 and
// finishes the run.
//
// Rules:
// - only a conflict (the store refused the claim: fencing, another
//   claimant, a finished run or an expired lease) means the claim is lost:
//   beat() says kLost; the supervisor stops the target's group (SIGTERM,
//   SIGKILL after the grace) and does not finish the run;
// - every other store error (busy, I/O, a read-only or damaged database,
//   anything else) is retried with a backoff that starts at 50 ms and
//   doubles up to the heartbeat interval, for as long as the lease stored
//   last still runs; when it would run out first, beat() says kExpired: the
//   supervisor stops the target (SIGTERM, SIGKILL after the grace) and
//   finishes, and the outcome is kept (below);
// - the lease counts from the lease actually stored: the claim's at first,
//   then the wall-clock instant sent with the last heartbeat that succeeded
//   plus the lease; the next heartbeat is due lease/3 after that write
//   returned;
// - recording the target process and finishing are retried the same way
//   (at most 8 tries, within the lease); a finish that still fails is kept: the outcome is kept in
//   <run dir>/outcome.json, so that recovery records it instead of running
//   the work again.
//
// The store connection must give up on a busy database quickly
// (supervisor_busy_timeout_ms): the keeper, not SQLite's busy handler, does
// the waiting, so the supervisor keeps reading output and handling signals.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "core/result.h"
#include "exec/env.h"
#include "store/claim_ledger.h"

namespace orrery {

class ClaimKeeper {
 public:
  using Clock = std::chrono::steady_clock;
  using WallClock = std::function<TimeMs()>;
  enum class Beat { kRenewed, kRetrying, kLost, kExpired };
  // `lease_expires_at` is the lease the claim holds now (the run's).
  // What the claim is of is the claim's kind (core/work_kind.h): a kind
  // that keeps outcomes keeps one in `work_dir` when the finish fails.
  ClaimKeeper(ClaimLedger& ledger, Env& env, Claim claim, DurationMs lease_ms,
              TimeMs lease_expires_at, std::string work_dir, WallClock wall_clock);

  const Claim& claim() const { return claim_; }
  // When the next heartbeat is due; never once the claim is lost or expired.
  Clock::time_point next_beat() const { return next_beat_; }
  // The wall-clock end of the lease stored last.
  TimeMs lease_end() const { return lease_end_; }
  // Renews the lease (call at next_beat()); on kLost or kExpired,
  // lost_reason() says why.
  Beat beat();
  const Error& lost_reason() const { return lost_; }
  // Records the held target and this supervisor on the run, with retries.
  Status record_process(const ProcessIdentity& target, int pgid, const ProcessIdentity& supervisor);
  // Writes the outcome, with retries; keeps it in the run directory if that
  // fails. Returns the store's last error when the outcome was not written.
  Status finish(const RunOutcome& outcome);

 private:
  bool lease_outlasts(std::chrono::milliseconds wait) const;
  // Runs `write` (given the wall-clock now) until it succeeds, is refused (a
  // conflict), was tried kWriteTries times, or the lease would run out.
  Status write_within_lease(const std::function<Status(TimeMs)>& write);
  Beat give_up(Beat beat, Error reason);

  ClaimLedger& ledger_;
  Env& env_;
  Claim claim_;
  DurationMs lease_ms_;
  std::chrono::milliseconds interval_;
  TimeMs lease_end_;
  std::string work_dir_;
  WallClock wall_clock_;
  Clock::time_point next_beat_;
  std::chrono::milliseconds backoff_;
  Error lost_;
};

inline constexpr std::chrono::milliseconds kFirstBackoff{50};
inline constexpr int kWriteTries = 8;
inline constexpr int kSupervisorMaxBusyTimeoutMs = 1000;
inline constexpr int kSupervisorMinBusyTimeoutMs = 50;

// How long the supervisor's store connection waits for a busy database:
// min(1 s, lease/6), at least 50 ms (docs/execution.md).
int supervisor_busy_timeout_ms(DurationMs lease_ms);

}  // namespace orrery
