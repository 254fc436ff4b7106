#include "exec/claim_keeper.h"

#include <algorithm>
#include <thread>

#include "exec/kept_outcome.h"

namespace orrery {

ClaimKeeper::ClaimKeeper(Store& store, Env& env, Claim claim, DurationMs lease_ms,
                         std::string run_dir)
    : store_(store),
      env_(env),
      claim_(std::move(claim)),
      lease_ms_(lease_ms),
      interval_(std::max<DurationMs>(lease_ms / 3, 100)),
      run_dir_(std::move(run_dir)),
      renewed_at_(Clock::now()),
      next_beat_(renewed_at_ + interval_),
      backoff_(kFirstBackoff) {}

bool ClaimKeeper::transient(const Error& error) {
  return error.code == ErrorCode::kUnavailable || error.code == ErrorCode::kInternal;
}

ClaimKeeper::Clock::time_point ClaimKeeper::lease_end() const {
  return renewed_at_ + std::chrono::milliseconds(lease_ms_);
}

TimeMs ClaimKeeper::wall_now() const {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

ClaimKeeper::Beat ClaimKeeper::beat() {
  const Clock::time_point now = Clock::now();
  auto renewed = store_.heartbeat_run(claim_, lease_ms_, wall_now());
  if (renewed) {
    renewed_at_ = now;
    next_beat_ = now + interval_;
    backoff_ = kFirstBackoff;
    return Beat::kRenewed;
  }
  if (!transient(renewed.error())) {
    lost_ = renewed.error();
    return Beat::kLost;
  }
  if (now + backoff_ >= lease_end()) {
    lost_ = unavailable_error("cannot renew the lease of run " + claim_.run_id +
                              " before it ran out: " + renewed.error().message);
    return Beat::kLost;
  }
  next_beat_ = now + backoff_;
  backoff_ = std::min(backoff_ * 2, interval_);
  return Beat::kRetrying;
}

Status ClaimKeeper::finish(const RunOutcome& outcome) {
  const TimeMs finished_at = wall_now();
  std::chrono::milliseconds backoff = kFirstBackoff;
  Status written = store_.finalize_run(claim_, outcome, finished_at);
  for (int tries = 1; !written && transient(written.error()) && tries < kFinishTries; ++tries) {
    if (Clock::now() + backoff >= lease_end()) break;
    std::this_thread::sleep_for(backoff);  // a backoff, not a synchronisation
    backoff = std::min(backoff * 2, interval_);
    written = store_.finalize_run(claim_, outcome, wall_now());
  }
  if (written) return written;
  auto kept = keep_outcome(env_, run_dir_, {claim_.token, finished_at, outcome});
  const std::string where =
      kept ? "the outcome is kept in " + kept_outcome_path(run_dir_) + " for `orrery recover`"
           : "the outcome could not be kept either: " + kept.error().message;
  return Error{written.error().code, written.error().message + "; " + where};
}

}  // namespace orrery
