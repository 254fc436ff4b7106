#include "core/retry_policy.h"

#include <algorithm>

#include "core/limits.h"

namespace orrery {

Reattempt reattempt_kind(const Run& run, int max_attempts, bool lease_expired) {
  const bool attempts_left = run.attempt < max_attempts;
  const bool free_left = run.free_reattempts < kMaxFreeReattempts;
  if (run.status == RunStatus::kRunning) {
    if (!lease_expired) return Reattempt::kNone;
  } else if (!is_retryable(run.status)) {
    return Reattempt::kNone;
  } else if (!run.usage_limited && run.status != RunStatus::kAbandoned) {
    return attempts_left ? Reattempt::kOrdinary : Reattempt::kNone;
  }
  // An expired lease (reclaimed directly, or abandoned by recovery first) or
  // a usage limit: free while free re-attempts remain.
  if (free_left) return Reattempt::kFree;
  return attempts_left ? Reattempt::kOrdinary : Reattempt::kNone;
}

int counted_step_attempts(int made, int abandoned) {
  return made - std::clamp(abandoned, 0, kMaxFreeReattempts);
}

DurationMs backoff_cap(DurationMs base) {
  if (base <= 0) return 0;
  if (base > kMaxRetryDelayMs / kBackoffCapFactor) return kMaxRetryDelayMs;
  return std::min(base * kBackoffCapFactor, kMaxRetryDelayMs);
}

DurationMs retry_delay(DurationMs base, RetryBackoff backoff, int attempt, std::uint64_t random) {
  base = std::clamp<DurationMs>(base, 0, kMaxRetryDelayMs);
  if (backoff == RetryBackoff::kFixed || base == 0) return base;
  const DurationMs cap = backoff_cap(base);
  // base * 2^(attempt - 1), saturating at the cap.
  DurationMs ceiling = base;
  for (int n = 1; n < attempt && ceiling < cap; ++n) ceiling = std::min(cap, ceiling * 2);
  const auto span = std::uint64_t(ceiling - base) + 1;
  return base + DurationMs(random % span);
}

}  // namespace orrery
