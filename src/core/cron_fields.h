// CronFields: a five-field cron expression (minute hour day-of-month month
// day-of-week) parsed into bit sets, or one of the macros @hourly @daily
// @midnight @weekly @monthly @yearly @annually.
//
// Accepted per field: '*', numbers, ranges 'a-b', steps '*/n', 'a-b/n' and
// 'a/n' (= a through the maximum), comma lists; month names jan-dec and
// weekday names sun-sat (any case); 7 = Sunday. Invariants: every set is
// non-empty and in range; a day field that starts with '*' (also '*/2') is
// "unrestricted" for the Vixie OR rule: when both day fields are restricted a
// day matches if either does, otherwise both must.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace orrery {

struct CronFields {
  std::string expression;                 // as given, trimmed
  std::array<std::string, 5> field_text;  // after macro expansion
  std::uint64_t minutes = 0;              // bit m: minute m (0-59)
  std::uint32_t hours = 0;                // bit h: hour h (0-23)
  std::uint32_t days = 0;                 // bit d: day-of-month d (1-31)
  std::uint32_t months = 0;               // bit m: month m (1-12)
  std::uint32_t weekdays = 0;             // bit w: weekday w (0 = Sunday .. 6)
  bool minute_star = false;               // the field starts with '*'
  bool hour_star = false;
  bool day_of_month_star = false;
  bool day_of_week_star = false;
  // For each weekday of the 1st of a month, the days (bits 1-31) that fall on
  // a weekday in `weekdays`.
  std::array<std::uint32_t, 7> weekday_days_by_first{};

  // Both the minute and the hour field are fixed (neither starts with '*'):
  // DST gaps and repeats are handled as wall-clock times (docs/scheduling.md).
  bool fixed_time() const { return !minute_star && !hour_star; }

  // Days (bits 1..days_in_month) of the month that match both day fields.
  std::uint32_t matching_days(int first_weekday, int days_in_month) const;
};

Result<CronFields> parse_cron_fields(std::string_view expression);

}  // namespace orrery
