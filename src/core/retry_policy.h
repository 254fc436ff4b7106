// Retry policy (docs/scheduling.md, "Retries"): whether a finished slot or
// step attempt is attempted again, and after how long.
//
// Rules:
// - failed, timed_out and abandoned slots are retryable; succeeded,
//   skipped and cancelled ones never are;
// - a usage-limited or abandoned slot is re-attempted for free (the attempt
//   number stays) while it has had fewer than kMaxFreeReattempts free
//   re-attempts; after that, and for every other retryable slot, a
//   re-attempt is the next ordinary attempt, allowed while
//   attempt < max_attempts;
// - the delay before attempt n+1 is the loop's retry delay (fixed), or,
//   exponential, a uniformly random delay in [base, min(cap, base * 2^(n-1))]
//   where cap = min(base * kBackoffCapFactor, kMaxRetryDelayMs): never
//   shorter than the configured delay, never longer than the cap.
//   Pure: the randomness is an input;
// - a workflow step's attempt abandoned because its supervisor died is
//   free the same way: the first kMaxFreeReattempts of them do not count
//   against the step's attempts, every later one does — so a step that
//   always kills its supervisor ends, it is never reclaimed forever.
#pragma once

#include <cstdint>

#include "core/loop.h"
#include "core/run.h"

namespace orrery {

// A slot is re-attempted without using up an attempt at most this many
// times (docs/storage.md).
inline constexpr int kMaxFreeReattempts = 3;
inline constexpr std::int64_t kBackoffCapFactor = 64;

enum class Reattempt { kNone, kFree, kOrdinary };

// How a run that is no longer running (terminal, or running with an expired
// lease and nothing of it alive: pass `lease_expired`) may be attempted again.
Reattempt reattempt_kind(const Run& run, int max_attempts, bool lease_expired = false);

// The attempts of a workflow step that count against its max_attempts:
// `made` attempts so far, of which `abandoned` were abandoned (free up to
// kMaxFreeReattempts).
int counted_step_attempts(int made, int abandoned);

// The ceiling of the exponential backoff for a base delay.
DurationMs backoff_cap(DurationMs base);

// The delay before the attempt after `attempt` (1-based) failed; `random`
// is any 64-bit value (uniformity is the caller's).
DurationMs retry_delay(DurationMs base, RetryBackoff backoff, int attempt, std::uint64_t random);

}  // namespace orrery
