// Instants and their text forms.
//
// An instant is milliseconds since the Unix epoch, UTC (TimeMs). Text appears
// only at the edges: ISO 8601 in (Z, an offset, or no designator = local wall
// time in a given zone; seconds and fractions optional; 'T' or a space between
// date and time) or relative (+10m, from a given now); always
// YYYY-MM-DDTHH:MM:SS.mmmZ out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace orrery {

using TimeMs = std::int64_t;
using DurationMs = std::int64_t;

class TimeZone;

// Years orrery accepts in text: 1970 through 9999.
inline constexpr int kMinYear = 1970;
inline constexpr int kMaxYear = 9999;

// Parses an ISO 8601 instant or a relative "+DURATION" (added to now). A time
// without a zone designator is wall time in `zone`.
Result<TimeMs> parse_time(std::string_view text, TimeMs now, const TimeZone& zone);

// Formats as YYYY-MM-DDTHH:MM:SS.mmmZ.
std::string format_time(TimeMs time);

}  // namespace orrery
