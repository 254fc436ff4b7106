// Instants: milliseconds since the Unix epoch, UTC (TimeMs), and the range
// orrery accepts, stores and prints them in (docs/scheduling.md, "Limits").
// Their text forms are core/time.h's.
//
// Invariants: every stored or computed instant lies in the years 1970-9999
// (kEarliestTime to kLatestTime); arithmetic on an instant goes through
// add_checked or add_saturating, which never overflow.
#pragma once

#include <cstdint>
#include <optional>

namespace orrery {

using TimeMs = std::int64_t;
using DurationMs = std::int64_t;

inline constexpr DurationMs kMsPerDay = 86'400'000;

// Years orrery accepts, stores and prints: 1970 through 9999, that is the
// instants kEarliestTime (1970-01-01T00:00:00.000Z) to kLatestTime
// (9999-12-31T23:59:59.999Z).
inline constexpr int kMinYear = 1970;
inline constexpr int kMaxYear = 9999;
inline constexpr TimeMs kEarliestTime = 0;
inline constexpr TimeMs kLatestTime = 2'932'897 * kMsPerDay - 1;

inline bool in_time_range(TimeMs time) { return time >= kEarliestTime && time <= kLatestTime; }

// time + duration, or nullopt when the sum overflows or leaves the years
// 1970-9999. Every computed time goes through this or add_saturating.
std::optional<TimeMs> add_checked(TimeMs time, DurationMs duration);
// time + duration, clamped to [kEarliestTime, kLatestTime]; never overflows.
TimeMs add_saturating(TimeMs time, DurationMs duration);

}  // namespace orrery
