#include "core/cron_calendar.h"

#include <bit>

#include "core/civil.h"

namespace orrery {
namespace {

constexpr std::int64_t kMinutesPerDay = 1440;

// Lowest set bit at or above `at`, or -1.
int lowest_at_or_above(std::uint64_t bits, int at) {
  if (at > 63) return -1;
  const std::uint64_t masked = bits & (~std::uint64_t{0} << at);
  return masked == 0 ? -1 : std::countr_zero(masked);
}

// Highest set bit at or below `at`, or -1.
int highest_at_or_below(std::uint64_t bits, int at) {
  if (at < 0) return -1;
  const std::uint64_t masked = at >= 63 ? bits : bits & ((std::uint64_t{2} << at) - 1);
  return masked == 0 ? -1 : 63 - std::countl_zero(masked);
}

std::uint32_t days_of(const CronFields& cron, int year, int month) {
  const int first_weekday = weekday_from_days(days_from_civil({year, month, 1}));
  return cron.matching_days(first_weekday, days_in_month(year, month));
}

// The first matching minute of the day at or after minute_of_day, or -1.
int first_time_in_day(const CronFields& cron, int minute_of_day) {
  int hour = minute_of_day / 60;
  if (cron.hours >> hour & 1) {
    const int minute = lowest_at_or_above(cron.minutes, minute_of_day % 60);
    if (minute >= 0) return hour * 60 + minute;
  }
  hour = lowest_at_or_above(cron.hours, hour + 1);
  return hour < 0 ? -1 : hour * 60 + std::countr_zero(cron.minutes);
}

// The last matching minute of the day at or before minute_of_day, or -1.
int last_time_in_day(const CronFields& cron, int minute_of_day) {
  int hour = minute_of_day / 60;
  if (cron.hours >> hour & 1) {
    const int minute = highest_at_or_below(cron.minutes, minute_of_day % 60);
    if (minute >= 0) return hour * 60 + minute;
  }
  hour = highest_at_or_below(cron.hours, hour - 1);
  return hour < 0 ? -1 : hour * 60 + 63 - std::countl_zero(cron.minutes);
}

}  // namespace

std::optional<WallMinute> first_match(const CronFields& cron, WallMinute from, WallMinute until) {
  const CivilDate start = civil_from_days(floor_div(from, kMinutesPerDay));
  int year = start.year;
  int month = start.month;
  int day = start.day;
  int minute_of_day = int(floor_mod(from, kMinutesPerDay));
  while (days_from_civil({year, month, 1}) * kMinutesPerDay < until) {
    const int next_month = lowest_at_or_above(cron.months, month);
    if (next_month != month) {  // this month does not match: go to the next one that does
      day = 1;
      minute_of_day = 0;
      if (next_month < 0) {
        ++year;
        month = std::countr_zero(cron.months);
      } else {
        month = next_month;
      }
      continue;
    }
    const std::uint32_t days = days_of(cron, year, month);
    for (int d = lowest_at_or_above(days, day); d >= 0; d = lowest_at_or_above(days, d + 1)) {
      const int time = first_time_in_day(cron, d == day ? minute_of_day : 0);
      if (time < 0) continue;
      const WallMinute found = days_from_civil({year, month, d}) * kMinutesPerDay + time;
      if (found >= until) return std::nullopt;
      return found;
    }
    day = 1;
    minute_of_day = 0;
    if (++month > 12) {
      month = 1;
      ++year;
    }
  }
  return std::nullopt;
}

std::optional<WallMinute> last_match(const CronFields& cron, WallMinute from, WallMinute floor) {
  const CivilDate start = civil_from_days(floor_div(from, kMinutesPerDay));
  int year = start.year;
  int month = start.month;
  int day = start.day;
  int minute_of_day = int(floor_mod(from, kMinutesPerDay));
  while ((days_from_civil({year, month, 1}) + days_in_month(year, month)) * kMinutesPerDay >
         floor) {
    const int previous_month = highest_at_or_below(cron.months, month);
    if (previous_month != month) {
      if (previous_month < 0) {
        --year;
        month = 63 - std::countl_zero(std::uint64_t{cron.months});
      } else {
        month = previous_month;
      }
      day = days_in_month(year, month);
      minute_of_day = int(kMinutesPerDay) - 1;
      continue;
    }
    const std::uint32_t days = days_of(cron, year, month);
    for (int d = highest_at_or_below(days, day); d > 0; d = highest_at_or_below(days, d - 1)) {
      const int time = last_time_in_day(cron, d == day ? minute_of_day : int(kMinutesPerDay) - 1);
      if (time < 0) continue;
      const WallMinute found = days_from_civil({year, month, d}) * kMinutesPerDay + time;
      if (found < floor) return std::nullopt;
      return found;
    }
    if (--month < 1) {
      month = 12;
      --year;
    }
    day = days_in_month(year, month);
    minute_of_day = int(kMinutesPerDay) - 1;
  }
  return std::nullopt;
}

}  // namespace orrery
