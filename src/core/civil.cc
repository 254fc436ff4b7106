#include "core/civil.h"

#include <date/date.h>

namespace orrery {

std::int64_t days_from_civil(CivilDate date) {
  const date::year_month_day ymd{date::year{date.year}, date::month{unsigned(date.month)},
                                 date::day{unsigned(date.day)}};
  return date::sys_days{ymd}.time_since_epoch().count();
}

CivilDate civil_from_days(std::int64_t days) {
  const date::year_month_day ymd{date::sys_days{date::days{days}}};
  return {int(ymd.year()), int(unsigned(ymd.month())), int(unsigned(ymd.day()))};
}

int days_in_month(int year, int month) {
  const date::year_month_day_last last{date::year{year} / date::month{unsigned(month)} /
                                       date::last};
  return int(unsigned(last.day()));
}

int weekday_from_days(std::int64_t days) {
  return int(date::weekday{date::sys_days{date::days{days}}}.c_encoding());
}

}  // namespace orrery
