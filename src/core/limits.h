// Every limit on user input in one place (docs/scheduling.md, "Limits"; docs/cli.md).
//
// Durations: each option that takes one has a maximum; larger values are
// refused (exit 2) naming the option, the value and the maximum. With these
// maxima every time orrery computes from a time in 1970-9999 and one duration
// fits in int64 milliseconds with room to spare. Times themselves stay within
// the years 1970-9999 (kEarliestTime, kLatestTime in core/instant.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/instant.h"

namespace orrery {

// Schedules: --every, --jitter, --min, --max.
inline constexpr DurationMs kMaxIntervalMs = 365 * kMsPerDay;
inline constexpr DurationMs kMaxJitterMs = 365 * kMsPerDay;
inline constexpr DurationMs kMaxDynamicDelayMs = 365 * kMsPerDay;
// Policies: --catch-up-window, --timeout, --idle-timeout, --lease, --retry-delay.
inline constexpr DurationMs kMaxCatchUpWindowMs = 365 * kMsPerDay;
inline constexpr DurationMs kMaxTimeoutMs = 365 * kMsPerDay;
inline constexpr DurationMs kMaxLeaseMs = 30 * kMsPerDay;
inline constexpr DurationMs kMaxRetryDelayMs = 30 * kMsPerDay;
// prune --older-than.
inline constexpr DurationMs kMaxAgeMs = 100 * 365 * kMsPerDay;

// Loop names: 1 to 100 characters (code points).
inline constexpr int kMaxNameCharacters = 100;

// Runner labels (daemon --label) and loop selectors (--machine): at most 32
// labels, each LABEL 1-63 bytes and VALUE 1-255 bytes.
inline constexpr int kMaxLabels = 32;
inline constexpr std::size_t kMaxLabelKeyBytes = 63;
inline constexpr std::size_t kMaxLabelValueBytes = 255;

// --log-limit: bytes kept per output stream.
inline constexpr std::int64_t kMinLogLimitBytes = 64LL << 10;  // 64 KiB
inline constexpr std::int64_t kMaxLogLimitBytes = 16LL << 30;  // 16 GiB

// The most of a log one request reads (GET /v1/runs/RUN/log, docs/server.md).
inline constexpr std::int64_t kMaxLogRangeBytes = 1LL << 20;  // 1 MiB
// An agent's prompt file, read whole when the loop is added and at each run.
inline constexpr std::int64_t kMaxPromptFileBytes = 1LL << 20;  // 1 MiB
// A loop's secrets file (one KEY=VALUE per line).
inline constexpr std::int64_t kMaxSecretsFileBytes = 1LL << 20;  // 1 MiB

}  // namespace orrery
