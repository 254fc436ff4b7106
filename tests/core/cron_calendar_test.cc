#include "core/cron_calendar.h"

#include <gtest/gtest.h>

#include "core/civil.h"

namespace orrery {
namespace {

// Wall minutes of a civil date and time.
WallMinute wall(int year, int month, int day, int hour = 0, int minute = 0) {
  return days_from_civil({year, month, day}) * 1440 + hour * 60 + minute;
}

CronFields fields(const char* expression) { return *parse_cron_fields(expression); }

TEST(CronCalendar, FirstMatchIsAtOrAfterFrom) {
  const CronFields cron = fields("30 4 * * *");
  EXPECT_EQ(first_match(cron, wall(2026, 1, 1, 4, 30), wall(2027, 1, 1)), wall(2026, 1, 1, 4, 30));
  EXPECT_EQ(first_match(cron, wall(2026, 1, 1, 4, 31), wall(2027, 1, 1)), wall(2026, 1, 2, 4, 30));
}

TEST(CronCalendar, FirstMatchStopsBeforeUntil) {
  const CronFields cron = fields("0 0 29 2 *");
  EXPECT_EQ(first_match(cron, wall(2026, 3, 1), wall(2028, 2, 29)), std::nullopt);
  EXPECT_EQ(first_match(cron, wall(2026, 3, 1), wall(2028, 2, 29) + 1), wall(2028, 2, 29));
}

TEST(CronCalendar, LastMatchIsAtOrBeforeFromAndNotBelowFloor) {
  const CronFields cron = fields("0 0 1 * *");
  EXPECT_EQ(last_match(cron, wall(2026, 3, 1), wall(2000, 1, 1)), wall(2026, 3, 1));
  EXPECT_EQ(last_match(cron, wall(2026, 3, 1) - 1, wall(2000, 1, 1)), wall(2026, 2, 1));
  EXPECT_EQ(last_match(cron, wall(2026, 3, 1) - 1, wall(2026, 2, 1) + 1), std::nullopt);
}

// A calendar with no matching day in range ends, it does not spin.
TEST(CronCalendar, ImpossibleDatesEndTheSearch) {
  CronFields cron = fields("0 0 30 * *");
  cron.months = 1u << 2;  // February only: day 30 never exists
  EXPECT_EQ(first_match(cron, wall(2026, 1, 1), wall(2126, 1, 1)), std::nullopt);
  EXPECT_EQ(last_match(cron, wall(2126, 1, 1), wall(2026, 1, 1)), std::nullopt);
}

}  // namespace
}  // namespace orrery
