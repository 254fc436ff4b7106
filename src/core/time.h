// Instants and their text forms.
//
// An instant is milliseconds since the Unix epoch, UTC (TimeMs). Text appears
// only at the edges: ISO 8601 in (Z, an offset, or no designator = local wall
// time in a given zone; seconds and fractions optional; 'T' or a space between
// date and time) or relative (+10m, from a given now); always
// YYYY-MM-DDTHH:MM:SS.mmmZ out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace orrery {

using TimeMs = std::int64_t;
using DurationMs = std::int64_t;

class TimeZone;

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

// Parses an ISO 8601 instant or a relative "+DURATION" (added to now). A time
// without a zone designator is wall time in `zone`.
Result<TimeMs> parse_time(std::string_view text, TimeMs now, const TimeZone& zone);

// Formats as YYYY-MM-DDTHH:MM:SS.mmmZ. A time outside the years 1970-9999 is
// clamped to the nearest end of that range (it is never stored that way).
std::string format_time(TimeMs time);

}  // namespace orrery
