// Durations in text: "500ms", "30s", "15m", "2h", "1d", combinations in
// descending units ("1h30m", "2d4h"), a decimal for one unit ("1.5h"), or bare
// milliseconds ("1500").
//
// Invariant: a parsed duration is a non-negative number of milliseconds that
// fits in int64; zero only where the caller allows it.
#pragma once

#include <string>
#include <string_view>

#include "core/instant.h"
#include "core/result.h"

namespace orrery {

enum class ZeroDuration { kRejected, kAllowed };

Result<DurationMs> parse_duration(std::string_view text,
                                  ZeroDuration zero = ZeroDuration::kRejected);

// parse_duration for a command-line option with a maximum (core/limits.h):
// every error names the option and the value; a value beyond the maximum is
// refused naming the maximum.
Result<DurationMs> parse_duration_option(std::string_view text, std::string_view option,
                                         DurationMs maximum,
                                         ZeroDuration zero = ZeroDuration::kRejected);

// Formats for humans, largest units first, dropping zero parts: 5400000 ->
// "1h30m", 500 -> "500ms", 0 -> "0s". Round trips through parse_duration.
std::string format_duration(DurationMs duration);

}  // namespace orrery

namespace orrery {

// A time relative to now for humans, to two units: "in 4m", "3h12m ago",
// "in 1d16h", "now" (within a second).
std::string format_relative(TimeMs time, TimeMs now);

}  // namespace orrery
