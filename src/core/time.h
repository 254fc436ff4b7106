// The text forms of instants (core/instant.h). Text appears only at the
// edges: ISO 8601 in (Z, an offset, or no designator = local wall time in a
// given zone; seconds and fractions optional; 'T' or a space between date
// and time) or relative (+10m, from a given now); always
// YYYY-MM-DDTHH:MM:SS.mmmZ out.
//
// Invariants: a parsed instant lies in the years 1970-9999; a formatted one
// is clamped to them.
#pragma once

#include <string>
#include <string_view>

#include "core/instant.h"
#include "core/result.h"

namespace orrery {

class TimeZone;

// Parses an ISO 8601 instant or a relative "+DURATION" (added to now). A time
// without a zone designator is wall time in `zone`.
Result<TimeMs> parse_time(std::string_view text, TimeMs now, const TimeZone& zone);

// Formats as YYYY-MM-DDTHH:MM:SS.mmmZ. A time outside the years 1970-9999 is
// clamped to the nearest end of that range (it is never stored that way).
std::string format_time(TimeMs time);

}  // namespace orrery
