#include "exec/claim_keeper.h"

#include <algorithm>
#include <thread>

#include "exec/kept_outcome.h"

namespace orrery {

int supervisor_busy_timeout_ms(DurationMs lease_ms) {
  const DurationMs sixth = std::min<DurationMs>(lease_ms / 6, kSupervisorMaxBusyTimeoutMs);
  return int(std::max<DurationMs>(sixth, kSupervisorMinBusyTimeoutMs));
}

ClaimKeeper::ClaimKeeper(Store& store, Env& env, Claim claim, DurationMs lease_ms,
                         TimeMs lease_expires_at, std::string run_dir, WallClock wall_clock,
                         Work work)
    : store_(store),
      env_(env),
      claim_(std::move(claim)),
      lease_ms_(lease_ms),
      interval_(std::max<DurationMs>(lease_ms / 3, 100)),
      lease_end_(lease_expires_at),
      run_dir_(std::move(run_dir)),
      wall_clock_(std::move(wall_clock)),
      next_beat_(Clock::now() + interval_),
      backoff_(kFirstBackoff),
      work_(work) {}

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
  auto renewed = work_ == Work::kLoopRun ? store_.heartbeat_run(claim_, lease_ms_, sent)
                                         : store_.heartbeat_attempt(claim_, lease_ms_, sent);
  if (renewed) {
    lease_end_ = sent + lease_ms_;  // what the store holds now
    next_beat_ = Clock::now() + interval_;
    backoff_ = kFirstBackoff;
    return Beat::kRenewed;
  }
  if (renewed.error().code == ErrorCode::kConflict) return give_up(Beat::kLost, renewed.error());
  if (!lease_outlasts(backoff_)) {
    return give_up(Beat::kExpired, Error{renewed.error().code,
                                         "cannot renew the lease of run " + claim_.run_id +
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
  return write_within_lease([&](TimeMs now) {
    return work_ == Work::kLoopRun
               ? store_.record_process(claim_, target, pgid, supervisor, now)
               : store_.record_attempt_process(claim_, target, pgid, supervisor, now);
  });
}

Status ClaimKeeper::finish(const RunOutcome& outcome, const std::string& outputs_json) {
  const TimeMs finished_at = wall_clock_();
  const Status written = write_within_lease([&](TimeMs now) {
    return work_ == Work::kLoopRun ? store_.finalize_run(claim_, outcome, now)
                                   : store_.finalize_attempt(claim_, outcome, outputs_json, now);
  });
  if (written) return written;
  if (work_ == Work::kStepAttempt) {
    return Error{written.error().code,
                 written.error().message + "; the step's driver gives it a new attempt"};
  }
  auto kept = keep_outcome(env_, run_dir_, {claim_.token, finished_at, outcome});
  const std::string where =
      kept ? "the outcome is kept in " + kept_outcome_path(run_dir_) + " for `orrery recover`"
           : "the outcome could not be kept either: " + kept.error().message;
  return Error{written.error().code, written.error().message + "; " + where};
}

}  // namespace orrery
