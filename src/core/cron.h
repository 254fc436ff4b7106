// CronSchedule: a cron expression in a time zone, and its fire instants.
//
// Fire instants (docs/scheduling.md, as Vixie cron and cronie):
// - a wildcard job (minute or hour field starts with '*') follows real time:
//   it fires at every instant whose wall time matches, so twice through a
//   repeated hour and never inside a skipped one;
// - a fixed-time job (neither does) follows the wall clock: a matching wall
//   time inside a DST gap fires once, at the first instant after the gap
//   (several such times fire together, once); a wall time that occurs twice
//   fires at its first occurrence only.
// Invariants: next_after(t) > t and latest_before(t) < t; no fire instant lies
// strictly between t and either; a search gives up after 8 x 366 days with an
// error naming the expression, never loops.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/cron_fields.h"
#include "core/result.h"
#include "core/time.h"
#include "core/timezone.h"

namespace orrery {

inline constexpr DurationMs kCronSearchHorizon = DurationMs{8} * 366 * 86'400'000;

class CronSchedule {
 public:
  static Result<CronSchedule> parse(std::string_view expression, TimeZone zone);

  // The first fire instant strictly after `after`.
  Result<TimeMs> next_after(TimeMs after) const;
  // The last fire instant strictly before `before`.
  Result<TimeMs> latest_before(TimeMs before) const;

  const CronFields& fields() const { return fields_; }
  const std::string& expression() const { return fields_.expression; }
  const TimeZone& zone() const { return zone_; }

 private:
  CronSchedule(CronFields fields, TimeZone zone)
      : fields_(std::move(fields)), zone_(std::move(zone)) {}

  // Per-segment searches; see cron.cc.
  std::optional<TimeMs> first_in_segment(const ZoneSegment& segment, TimeMs from,
                                         TimeMs until) const;
  std::optional<TimeMs> last_in_segment(const ZoneSegment& segment, TimeMs before,
                                        TimeMs floor) const;
  bool gap_fires(const ZoneSegment& segment, DurationMs previous_offset) const;
  DurationMs previous_offset(const ZoneSegment& segment) const;
  Error no_fire_error(TimeMs from, const char* direction) const;

  CronFields fields_;
  TimeZone zone_;
};

}  // namespace orrery
