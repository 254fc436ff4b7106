#include "exec/claim_keeper.h"

#include <algorithm>
#include <thread>

#include "exec/kept_outcome.h"

namespace orrery {

int supervisor_busy_timeout_ms(DurationMs lease_ms) {
  const DurationMs sixth = std::min<DurationMs>(lease_ms / 6, kSupervisorMaxBusyTimeoutMs);
  return int(std::max<DurationMs>(sixth, kSupervisorMinBusyTimeoutMs));
}

ClaimKeeper::ClaimKeeper(ClaimLedger& ledger, Env& env, Claim claim, DurationMs lease_ms,
                         TimeMs lease_expires_at, std::string work_dir, WallClock wall_clock)
    : ledger_(ledger),
      env_(env),
      claim_(std::move(claim)),
      lease_ms_(lease_ms),
      interval_(std::max<DurationMs>(lease_ms / 3, 100)),
      lease_end_(lease_expires_at),
      work_dir_(std::move(work_dir)),
      wall_clock_(std::move(wall_clock)),
      next_beat_(Clock::now() + interval_),
      backoff_(kFirstBackoff) {}

bool ClaimKeeper::lease_outlasts(std::chrono::milliseconds wait) const {
  return wall_clock_() + wait.count() < lease_end_;
}

ClaimKeeper::Beat ClaimKeeper::give_up(Beat beat, Error reason) {
  lost_ = std::move(reason);
  next_beat_ = Clock::time_point::max();
  return beat;
}

ClaimKeeper::Beat ClaimKeeper::beat() {
  const TimeMs sent = wall_clock_();
  auto renewed = ledger_.heartbeat_claim(claim_, lease_ms_, sent);
  if (renewed) {
    lease_end_ = sent + lease_ms_;  // what the store holds now
    next_beat_ = Clock::now() + interval_;
    backoff_ = kFirstBackoff;
    return Beat::kRenewed;
  }
  if (renewed.error().code == ErrorCode::kConflict) return give_up(Beat::kLost, renewed.error());
  if (!lease_outlasts(backoff_)) {
    return give_up(Beat::kExpired, Error{renewed.error().code,
                                         std::string("cannot renew the lease of ") +
                                             work_kind_traits(claim_.kind).noun + " " + claim_.id +
                                             " before it ran out: " + renewed.error().message});
  }
  next_beat_ = Clock::now() + backoff_;
  backoff_ = std::min(backoff_ * 2, interval_);
  return Beat::kRetrying;
}

Status ClaimKeeper::write_within_lease(const std::function<Status(TimeMs)>& write) {
  std::chrono::milliseconds backoff = kFirstBackoff;
  Status written = write(wall_clock_());
  for (int tries = 1; !written && written.error().code != ErrorCode::kConflict &&
                      tries < kWriteTries && lease_outlasts(backoff);
       ++tries) {
    std::this_thread::sleep_for(backoff);  // a backoff, not a synchronisation
    backoff = std::min(backoff * 2, interval_);
    written = write(wall_clock_());
  }
  return written;
}

Status ClaimKeeper::record_process(const ProcessIdentity& target, int pgid,
                                   const ProcessIdentity& supervisor) {
  return write_within_lease(
      [&](TimeMs now) { return ledger_.record_process(claim_, target, pgid, supervisor, now); });
}

Status ClaimKeeper::finish(const RunOutcome& outcome) {
  const TimeMs finished_at = wall_clock_();
  const Status written =
      write_within_lease([&](TimeMs now) { return ledger_.finish_claim(claim_, outcome, now); });
  if (written) return written;
  const WorkKindTraits& kind = work_kind_traits(claim_.kind);
  if (!kind.keeps_outcome) {
    return Error{written.error().code, written.error().message + "; " + kind.lost_outcome_remedy};
  }
  auto kept = keep_outcome(env_, work_dir_, {claim_.token, finished_at, outcome});
  const std::string where =
      kept ? "the outcome is kept in " + kept_outcome_path(work_dir_) + " for `orrery recover`"
           : "the outcome could not be kept either: " + kept.error().message;
  return Error{written.error().code, written.error().message + "; " + where};
}

}  // namespace orrery
