// Civil (proleptic Gregorian) calendar arithmetic on day numbers, where day 0
// is 1970-01-01. Pure; used by time parsing, cron search and formatting.
#pragma once

#include <cstdint>

namespace orrery {

struct CivilDate {
  int year = 1970;
  int month = 1;  // 1-12
  int day = 1;    // 1-31
};

std::int64_t days_from_civil(CivilDate date);
CivilDate civil_from_days(std::int64_t days);
int days_in_month(int year, int month);
// 0 = Sunday ... 6 = Saturday.
int weekday_from_days(std::int64_t days);

// Floor division and modulo for negative numerators.
inline std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline std::int64_t floor_mod(std::int64_t a, std::int64_t b) { return a - floor_div(a, b) * b; }
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return -floor_div(-a, b); }

}  // namespace orrery
