// TimeZone: an IANA zone seen as a sequence of segments, each a half-open
// span of instants [begin, end) with one UTC offset.
//
// Invariants: segment_at(t) contains t; segments are contiguous (the end of
// one is the begin of the next). UTC is one segment covering all time. Wall
// times are written as LocalMs: milliseconds since the epoch as if the wall
// clock were UTC. The tz library gives no transitions after 2037 from the
// system database, so later instants keep the last offset (docs/scheduling.md).
#pragma once

#include <string>
#include <string_view>

#include "core/instant.h"
#include "core/result.h"

namespace date {
class time_zone;
}

namespace orrery {

using LocalMs = std::int64_t;

struct ZoneSegment {
  TimeMs begin = 0;
  TimeMs end = 0;
  DurationMs offset = 0;  // wall = instant + offset
};

// The furthest instants a segment reports, far beyond any year orrery uses.
inline constexpr TimeMs kEarliestInstant = -(TimeMs{1} << 53);
inline constexpr TimeMs kLatestInstant = TimeMs{1} << 53;

class TimeZone {
 public:
  static TimeZone utc();
  // An IANA name such as "Europe/Berlin", or "UTC".
  static Result<TimeZone> named(std::string_view name);
  // The machine's zone: $TZ when it names a zone, else /etc/localtime, else UTC.
  static TimeZone local();

  const std::string& name() const { return name_; }
  bool is_utc() const { return zone_ == nullptr; }

  ZoneSegment segment_at(TimeMs instant) const;
  DurationMs offset_at(TimeMs instant) const { return segment_at(instant).offset; }
  LocalMs to_wall(TimeMs instant) const { return instant + offset_at(instant); }

  // The instant a wall time names: its first occurrence when the clock went
  // back; the first instant after the gap when the clock skipped it.
  TimeMs from_wall(LocalMs wall) const;

 private:
  TimeZone(std::string name, const date::time_zone* zone) : name_(std::move(name)), zone_(zone) {}

  std::string name_;
  const date::time_zone* zone_;  // nullptr: UTC
};

}  // namespace orrery
