// ClaimKeeper: a supervisor's hold on its run's claim (docs/execution.md,
// "Heartbeats and finishing"). It renews the lease every lease/3 and
// finishes the run.
//
// Rules:
// - a transient store error (unavailable: the database stayed busy; or an
//   internal I/O error) is retried with a backoff that starts at 50 ms and
//   doubles up to the heartbeat interval, for as long as the lease last
//   renewed still runs; only a refused claim (a conflict: fencing, another
//   claimant, an expired lease) or a lease that ran out while retrying
//   counts as lost;
// - a finish that cannot be written is retried the same way (at most 8
//   tries, within the lease); if it still fails, the outcome is kept in
//   <run dir>/outcome.json, so that recovery records it instead of running
//   the work again.
#pragma once

#include <chrono>
#include <string>

#include "core/result.h"
#include "exec/env.h"
#include "store/store.h"

namespace orrery {

class ClaimKeeper {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Beat { kRenewed, kRetrying, kLost };

  ClaimKeeper(Store& store, Env& env, Claim claim, DurationMs lease_ms, std::string run_dir);

  const Claim& claim() const { return claim_; }
  // When the next heartbeat is due.
  Clock::time_point next_beat() const { return next_beat_; }
  // Renews the lease (call at next_beat()); on kLost, lost_reason() says why.
  Beat beat();
  const Error& lost_reason() const { return lost_; }
  // Writes the outcome, with retries; keeps it in the run directory if that
  // fails. Returns the store's last error when the outcome was not written.
  Status finish(const RunOutcome& outcome);

 private:
  static bool transient(const Error& error);
  Clock::time_point lease_end() const;
  TimeMs wall_now() const;

  Store& store_;
  Env& env_;
  Claim claim_;
  DurationMs lease_ms_;
  std::chrono::milliseconds interval_;
  std::string run_dir_;
  Clock::time_point renewed_at_;
  Clock::time_point next_beat_;
  std::chrono::milliseconds backoff_;
  Error lost_;
};

inline constexpr std::chrono::milliseconds kFirstBackoff{50};
inline constexpr int kFinishTries = 8;

}  // namespace orrery
