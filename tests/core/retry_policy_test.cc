#include "core/retry_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <limits>

#include "core/limits.h"

namespace orrery {
namespace {

constexpr DurationMs kSecond = 1000;

Run run_with(RunStatus status, int attempt, bool usage_limited = false, int free = 0) {
  orrery::Run run;
  run.status = status;
  run.attempt = attempt;
  run.usage_limited = usage_limited;
  run.free_reattempts = free;
  return run;
}

struct KindCase {
  RunStatus status;
  int attempt;
  bool usage_limited;
  int free;
  bool lease_expired;
  Reattempt expected;
};

TEST(RetryPolicy, ReattemptKindTable) {
  constexpr int kMax = 3;
  constexpr int kUsedUp = kMaxFreeReattempts;
  const KindCase cases[] = {
      // Never retryable, whatever is left.
      {RunStatus::kSucceeded, 1, false, 0, false, Reattempt::kNone},
      {RunStatus::kSkipped, 1, false, 0, false, Reattempt::kNone},
      {RunStatus::kCancelled, 1, false, 0, false, Reattempt::kNone},
      {RunStatus::kQueued, 1, false, 0, false, Reattempt::kNone},
      {RunStatus::kSucceeded, 1, true, 0, false, Reattempt::kNone},
      // Failed and timed out: ordinary attempts while attempt < max.
      {RunStatus::kFailed, 1, false, 0, false, Reattempt::kOrdinary},
      {RunStatus::kFailed, 2, false, 0, false, Reattempt::kOrdinary},
      {RunStatus::kFailed, 3, false, 0, false, Reattempt::kNone},
      {RunStatus::kFailed, 4, false, 0, false, Reattempt::kNone},
      {RunStatus::kTimedOut, 2, false, 0, false, Reattempt::kOrdinary},
      {RunStatus::kTimedOut, 3, false, 0, false, Reattempt::kNone},
      // Usage-limited: free while free re-attempts remain, then ordinary.
      {RunStatus::kFailed, 3, true, 0, false, Reattempt::kFree},
      {RunStatus::kFailed, 3, true, kUsedUp - 1, false, Reattempt::kFree},
      {RunStatus::kFailed, 1, true, kUsedUp, false, Reattempt::kOrdinary},
      {RunStatus::kFailed, 3, true, kUsedUp, false, Reattempt::kNone},
      // Abandoned: the same.
      {RunStatus::kAbandoned, 3, false, 0, false, Reattempt::kFree},
      {RunStatus::kAbandoned, 1, false, kUsedUp - 1, false, Reattempt::kFree},
      {RunStatus::kAbandoned, 2, false, kUsedUp, false, Reattempt::kOrdinary},
      {RunStatus::kAbandoned, 3, false, kUsedUp, false, Reattempt::kNone},
      // Running: only when its lease expired with nothing of it alive.
      {RunStatus::kRunning, 1, false, 0, false, Reattempt::kNone},
      {RunStatus::kRunning, 3, false, 0, true, Reattempt::kFree},
      {RunStatus::kRunning, 1, false, kUsedUp, true, Reattempt::kOrdinary},
      {RunStatus::kRunning, 3, false, kUsedUp, true, Reattempt::kNone},
  };
  for (const KindCase& c : cases) {
    const orrery::Run run = run_with(c.status, c.attempt, c.usage_limited, c.free);
    EXPECT_EQ(reattempt_kind(run, kMax, c.lease_expired), c.expected)
        << run_status_name(c.status) << " attempt " << c.attempt << " limited " << c.usage_limited
        << " free " << c.free << " expired " << c.lease_expired;
  }
}

TEST(RetryPolicy, OneAttemptMeansNoOrdinaryRetry) {
  for (RunStatus status : {RunStatus::kFailed, RunStatus::kTimedOut}) {
    EXPECT_EQ(reattempt_kind(run_with(status, 1), 1), Reattempt::kNone);
  }
}

TEST(RetryPolicy, AbandonedStepAttemptsAreFreeUpToTheLimitAndCountAfterIt) {
  for (int made = 0; made <= 10; ++made) {
    for (int abandoned = 0; abandoned <= made; ++abandoned) {
      const int free = std::min(abandoned, kMaxFreeReattempts);
      EXPECT_EQ(counted_step_attempts(made, abandoned), made - free) << made << " " << abandoned;
      EXPECT_GE(counted_step_attempts(made, abandoned), made - kMaxFreeReattempts);
    }
  }
}

TEST(RetryPolicy, BackoffCapIsSixtyFourTimesTheBaseUpToThirtyDays) {
  EXPECT_EQ(backoff_cap(0), 0);
  EXPECT_EQ(backoff_cap(-5), 0);
  EXPECT_EQ(backoff_cap(1), 64);
  EXPECT_EQ(backoff_cap(kSecond), 64 * kSecond);
  EXPECT_EQ(backoff_cap(60 * kSecond), 64 * 60 * kSecond);
  EXPECT_EQ(backoff_cap(kMaxRetryDelayMs / 64), kMaxRetryDelayMs / 64 * 64);
  EXPECT_EQ(backoff_cap(kMaxRetryDelayMs / 64 + 1), kMaxRetryDelayMs);
  EXPECT_EQ(backoff_cap(kMsPerDay), kMaxRetryDelayMs);
  EXPECT_EQ(backoff_cap(kMaxRetryDelayMs), kMaxRetryDelayMs);
  EXPECT_EQ(backoff_cap(std::numeric_limits<DurationMs>::max()), kMaxRetryDelayMs);
}

TEST(RetryPolicy, AFixedDelayIsTheBaseWhateverTheAttempt) {
  for (DurationMs base : {DurationMs{0}, DurationMs{1}, 30 * kSecond, kMaxRetryDelayMs}) {
    for (int attempt : {1, 2, 10, INT_MAX}) {
      for (std::uint64_t random : {std::uint64_t{0}, std::uint64_t{7}, ~std::uint64_t{0}}) {
        EXPECT_EQ(retry_delay(base, RetryBackoff::kFixed, attempt, random), base);
      }
    }
  }
}

TEST(RetryPolicy, ExponentialCeilingDoublesPerAttemptUpToTheCap) {
  for (DurationMs base : {DurationMs{1}, kSecond, 30 * kSecond, kMsPerDay}) {
    const DurationMs cap = backoff_cap(base);
    DurationMs ceiling = base;
    for (int attempt = 1; attempt <= 40; ++attempt) {
      // random = ceiling - base reaches the ceiling; one more wraps to the base.
      const auto top = std::uint64_t(ceiling - base);
      EXPECT_EQ(retry_delay(base, RetryBackoff::kExponential, attempt, top), ceiling)
          << base << " attempt " << attempt;
      EXPECT_EQ(retry_delay(base, RetryBackoff::kExponential, attempt, top + 1), base);
      EXPECT_EQ(retry_delay(base, RetryBackoff::kExponential, attempt, 0), base);
      ceiling = std::min(cap, ceiling * 2);
    }
    EXPECT_EQ(ceiling, cap);
  }
}

TEST(RetryPolicy, ExponentialDelaysStayWithinBaseAndCap) {
  for (DurationMs base : {DurationMs{1}, DurationMs{999}, 45 * kSecond, kMaxRetryDelayMs / 3}) {
    for (int attempt : {1, 2, 3, 7, 63, 64, 65, 1000, INT_MAX}) {
      for (std::uint64_t random :
           {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{0x9e3779b97f4a7c15},
            ~std::uint64_t{0}, std::uint64_t{1} << 63}) {
        const DurationMs delay = retry_delay(base, RetryBackoff::kExponential, attempt, random);
        EXPECT_GE(delay, base);
        EXPECT_LE(delay, backoff_cap(base));
      }
    }
  }
}

TEST(RetryPolicy, HugeOrOddBasesAndAttemptsNeitherOverflowNorEscapeTheLimits) {
  const DurationMs bases[] = {std::numeric_limits<DurationMs>::max(), kMaxRetryDelayMs + 1,
                              kMaxRetryDelayMs, -1, std::numeric_limits<DurationMs>::min()};
  for (DurationMs base : bases) {
    for (RetryBackoff backoff : {RetryBackoff::kFixed, RetryBackoff::kExponential}) {
      for (int attempt : {INT_MIN, -1, 0, 1, 2, INT_MAX}) {
        for (std::uint64_t random : {std::uint64_t{0}, ~std::uint64_t{0}}) {
          const DurationMs delay = retry_delay(base, backoff, attempt, random);
          EXPECT_GE(delay, 0);
          EXPECT_LE(delay, kMaxRetryDelayMs);
          if (base <= 0) {
            EXPECT_EQ(delay, 0);
          }
          if (base >= kMaxRetryDelayMs) {
            EXPECT_EQ(delay, kMaxRetryDelayMs);
          }
        }
      }
    }
  }
}

TEST(RetryPolicy, AttemptsBelowOneCountAsTheFirst) {
  for (int attempt : {INT_MIN, -3, 0}) {
    EXPECT_EQ(retry_delay(kSecond, RetryBackoff::kExponential, attempt, ~std::uint64_t{0}),
              kSecond);
  }
}

}  // namespace
}  // namespace orrery
