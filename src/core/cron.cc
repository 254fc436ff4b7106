#include "core/cron.h"

#include <algorithm>

#include "core/civil.h"
#include "core/cron_calendar.h"

namespace orrery {
namespace {

constexpr DurationMs kMsPerMinute = 60'000;

// The wall minutes m with m * 1 min in [from_wall, until_wall).
WallMinute first_minute_at_or_after(LocalMs wall) { return ceil_div(wall, kMsPerMinute); }

}  // namespace

Result<CronSchedule> CronSchedule::parse(std::string_view expression, TimeZone zone) {
  auto fields = parse_cron_fields(expression);
  if (!fields) return fields.error();
  return CronSchedule(std::move(*fields), std::move(zone));
}

DurationMs CronSchedule::previous_offset(const ZoneSegment& segment) const {
  if (segment.begin <= kEarliestInstant) return segment.offset;
  return zone_.offset_at(segment.begin - 1);
}

// A fixed-time job fires at the start of a segment that follows a gap when a
// matching wall time lies in the gap [begin + previous offset, begin + offset).
bool CronSchedule::gap_fires(const ZoneSegment& segment, DurationMs previous) const {
  if (!fields_.fixed_time() || previous >= segment.offset) return false;
  const WallMinute from = first_minute_at_or_after(segment.begin + previous);
  const WallMinute until = first_minute_at_or_after(segment.begin + segment.offset);
  return first_match(fields_, from, until).has_value();
}

std::optional<TimeMs> CronSchedule::first_in_segment(const ZoneSegment& segment, TimeMs from,
                                                     TimeMs until) const {
  const DurationMs previous = previous_offset(segment);
  if (from <= segment.begin && gap_fires(segment, previous)) return segment.begin;
  LocalMs from_wall = from + segment.offset;
  // A fixed-time job already fired at the first occurrence of repeated walls.
  if (fields_.fixed_time() && previous > segment.offset) {
    from_wall = std::max(from_wall, segment.begin + previous);
  }
  const auto found = first_match(fields_, first_minute_at_or_after(from_wall),
                                 first_minute_at_or_after(until + segment.offset));
  if (!found) return std::nullopt;
  return *found * kMsPerMinute - segment.offset;
}

std::optional<TimeMs> CronSchedule::last_in_segment(const ZoneSegment& segment, TimeMs before,
                                                    TimeMs floor) const {
  const DurationMs previous = previous_offset(segment);
  LocalMs floor_wall = std::max(segment.begin, floor) + segment.offset;
  if (fields_.fixed_time() && previous > segment.offset) {
    floor_wall = std::max(floor_wall, segment.begin + previous);
  }
  const WallMinute last_minute = first_minute_at_or_after(before + segment.offset) - 1;
  const auto found = last_match(fields_, last_minute, first_minute_at_or_after(floor_wall));
  if (found) return *found * kMsPerMinute - segment.offset;
  if (segment.begin < before && segment.begin >= floor && gap_fires(segment, previous)) {
    return segment.begin;
  }
  return std::nullopt;
}

Error CronSchedule::no_fire_error(TimeMs from, const char* direction) const {
  return usage_error("cron '" + fields_.expression + "' has no fire time within 8 years " +
                     direction + " " + format_time(from) + " in " + zone_.name());
}

Result<TimeMs> CronSchedule::next_after(TimeMs after) const {
  const TimeMs limit = after + kCronSearchHorizon;
  TimeMs from = after + 1;
  while (from < limit) {
    const ZoneSegment segment = zone_.segment_at(from);
    const TimeMs until = std::min(segment.end, limit);
    if (until <= from) break;  // only at the end of representable time
    if (auto found = first_in_segment(segment, from, until)) return *found;
    from = until;
  }
  return no_fire_error(after, "after");
}

Result<TimeMs> CronSchedule::latest_before(TimeMs before) const {
  const TimeMs floor = before - kCronSearchHorizon;
  TimeMs upto = before;
  while (upto > floor) {
    const ZoneSegment segment = zone_.segment_at(upto - 1);
    if (auto found = last_in_segment(segment, upto, floor)) return *found;
    if (segment.begin >= upto) break;  // only at the start of representable time
    upto = std::max(segment.begin, floor);
  }
  return no_fire_error(before, "before");
}

}  // namespace orrery
