#include "core/time.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "core/civil.h"
#include "core/duration.h"
#include "core/text.h"
#include "core/timezone.h"

namespace orrery {
namespace {

constexpr std::int64_t kMsPerMinute = 60'000;

// A cursor over the text; each reader consumes what it recognises.
struct Cursor {
  std::string_view text;
  size_t pos = 0;

  bool done() const { return pos >= text.size(); }
  char peek() const { return done() ? '\0' : text[pos]; }
  bool take(char c) {
    if (peek() != c) return false;
    ++pos;
    return true;
  }
  // Reads exactly `width` digits.
  bool digits(int width, int* out) {
    int value = 0;
    for (int i = 0; i < width; ++i) {
      const char c = peek();
      if (c < '0' || c > '9') return false;
      value = value * 10 + (c - '0');
      ++pos;
    }
    *out = value;
    return true;
  }
};

std::string expected_forms(std::string_view text) {
  return "invalid time '" + std::string(text) +
         "': expected ISO 8601 such as 2026-03-01T09:00:00Z, 2026-03-01T09:00+01:00 or "
         "2026-03-01 09:00 (local), or a relative time such as +10m";
}

struct WallTime {
  CivilDate date;
  int hour = 0, minute = 0, second = 0, millis = 0;
};

// Milliseconds from 1 to 9 fraction digits (beyond 3 are truncated).
bool read_fraction(Cursor& in, int* millis) {
  int digits = 0;
  int value = 0;
  while (in.peek() >= '0' && in.peek() <= '9') {
    if (digits < 3) value = value * 10 + (in.peek() - '0');
    ++digits;
    ++in.pos;
  }
  if (digits == 0 || digits > 9) return false;
  for (int i = digits; i < 3; ++i) value *= 10;
  *millis = value;
  return true;
}

Result<WallTime> read_wall_time(Cursor& in, std::string_view text) {
  WallTime wall;
  if (!in.digits(4, &wall.date.year) || !in.take('-') || !in.digits(2, &wall.date.month) ||
      !in.take('-') || !in.digits(2, &wall.date.day)) {
    return usage_error(expected_forms(text));
  }
  if (in.take('T') || in.take('t') || in.take(' ')) {
    if (!in.digits(2, &wall.hour) || !in.take(':') || !in.digits(2, &wall.minute)) {
      return usage_error(expected_forms(text));
    }
    if (in.take(':')) {
      if (!in.digits(2, &wall.second)) return usage_error(expected_forms(text));
      if ((in.take('.') || in.take(',')) && !read_fraction(in, &wall.millis)) {
        return usage_error(expected_forms(text));
      }
    }
  }
  return wall;
}

Status check_ranges(const WallTime& wall, std::string_view text) {
  const auto bad = [&](const std::string& what) {
    return usage_error("invalid time '" + std::string(text) + "': " + what);
  };
  if (wall.date.year < kMinYear || wall.date.year > kMaxYear) {
    return bad("year " + std::to_string(wall.date.year) + " out of range " +
               std::to_string(kMinYear) + "-" + std::to_string(kMaxYear));
  }
  if (wall.date.month < 1 || wall.date.month > 12) {
    return bad("month " + std::to_string(wall.date.month) + " out of range 1-12");
  }
  const int last_day = days_in_month(wall.date.year, wall.date.month);
  if (wall.date.day < 1 || wall.date.day > last_day) {
    return bad("day " + std::to_string(wall.date.day) + " out of range 1-" +
               std::to_string(last_day) + " for that month");
  }
  if (wall.hour > 23) return bad("hour " + std::to_string(wall.hour) + " out of range 0-23");
  if (wall.minute > 59) return bad("minute " + std::to_string(wall.minute) + " out of range 0-59");
  if (wall.second > 59) return bad("second " + std::to_string(wall.second) + " out of range 0-59");
  return Ok{};
}

// Reads "Z", "+HH:MM", "+HHMM" or "+HH" into an offset; absent is nullopt.
Result<std::optional<DurationMs>> read_zone_designator(Cursor& in, std::string_view text) {
  if (in.done()) return std::optional<DurationMs>{};
  if (in.take('Z') || in.take('z')) return std::optional<DurationMs>{0};
  const char sign = in.peek();
  if (sign != '+' && sign != '-') return usage_error(expected_forms(text));
  ++in.pos;
  int hours = 0;
  int minutes = 0;
  if (!in.digits(2, &hours)) return usage_error(expected_forms(text));
  if (!in.done()) {
    in.take(':');
    if (!in.digits(2, &minutes)) return usage_error(expected_forms(text));
  }
  if (hours > 23 || minutes > 59) {
    return usage_error("invalid time '" + std::string(text) +
                       "': offset out of range -23:59 to +23:59");
  }
  const DurationMs offset = (hours * 60 + minutes) * kMsPerMinute;
  return std::optional<DurationMs>{sign == '-' ? -offset : offset};
}

Error out_of_range(std::string_view text) {
  return usage_error("invalid time '" + std::string(text) + "': outside the years " +
                     std::to_string(kMinYear) + "-" + std::to_string(kMaxYear) + " (UTC)");
}

Result<TimeMs> parse_relative(std::string_view text, TimeMs now) {
  auto duration = parse_duration(text.substr(1), ZeroDuration::kAllowed);
  if (!duration) {
    return usage_error("invalid relative time '" + std::string(text) +
                       "': expected + followed by a duration such as +10m or +1h30m");
  }
  TimeMs time = 0;
  if (__builtin_add_overflow(now, *duration, &time)) return out_of_range(text);
  return time;
}

// The instants text can name: years 1970 through 9999, UTC.
Result<TimeMs> within_years(TimeMs time, std::string_view text) {
  if (!in_time_range(time)) return out_of_range(text);
  return time;
}

}  // namespace

Result<TimeMs> parse_time(std::string_view raw, TimeMs now, const TimeZone& zone) {
  const std::string_view text = trim(raw);
  if (text == "now") return within_years(now, text);
  if (!text.empty() && text.front() == '+') {
    auto relative = parse_relative(text, now);
    if (!relative) return relative.error();
    return within_years(*relative, text);
  }

  Cursor in{text};
  auto wall = read_wall_time(in, text);
  if (!wall) return wall.error();
  if (auto ranges = check_ranges(*wall, text); !ranges) return ranges.error();
  auto offset = read_zone_designator(in, text);
  if (!offset) return offset.error();
  if (!in.done()) return usage_error(expected_forms(text));

  const LocalMs local = days_from_civil(wall->date) * kMsPerDay +
                        ((wall->hour * 60 + wall->minute) * 60 + wall->second) * 1000 +
                        wall->millis;
  return within_years(offset->has_value() ? local - **offset : zone.from_wall(local), text);
}

std::string format_time(TimeMs unclamped) {
  const TimeMs time = std::clamp(unclamped, kEarliestTime, kLatestTime);
  const std::int64_t days = floor_div(time, kMsPerDay);
  const std::int64_t ms_of_day = time - days * kMsPerDay;
  const CivilDate date = civil_from_days(days);
  const int hour = int(ms_of_day / 3'600'000);
  const int minute = int(ms_of_day / kMsPerMinute % 60);
  const int second = int(ms_of_day / 1000 % 60);
  const int millis = int(ms_of_day % 1000);
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", date.year, date.month,
                date.day, hour, minute, second, millis);
  return buffer;
}

}  // namespace orrery
