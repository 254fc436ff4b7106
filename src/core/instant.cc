#include "core/instant.h"

#include <algorithm>

namespace orrery {

std::optional<TimeMs> add_checked(TimeMs time, DurationMs duration) {
  TimeMs sum = 0;
  if (__builtin_add_overflow(time, duration, &sum) || !in_time_range(sum)) return std::nullopt;
  return sum;
}

TimeMs add_saturating(TimeMs time, DurationMs duration) {
  TimeMs sum = 0;
  if (__builtin_add_overflow(time, duration, &sum))
    return duration > 0 ? kLatestTime : kEarliestTime;
  return std::clamp(sum, kEarliestTime, kLatestTime);
}

}  // namespace orrery
