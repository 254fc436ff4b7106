#include "core/cron_describe.h"

#include <gtest/gtest.h>

namespace orrery {
namespace {

std::string describe(const char* expression) {
  auto fields = parse_cron_fields(expression);
  EXPECT_TRUE(fields.ok()) << expression;
  return fields ? describe_cron(*fields) : "";
}

TEST(CronDescribe, IntervalsOfMinutesAndHours) {
  EXPECT_EQ(describe("* * * * *"), "every minute");
  EXPECT_EQ(describe("*/5 * * * *"), "every 5 minutes");
  EXPECT_EQ(describe("0 * * * *"), "at minute 0 past every hour");
  EXPECT_EQ(describe("0 */2 * * *"), "at minute 0 past every 2 hours");
  EXPECT_EQ(describe("5/15 * * * *"), "at every 15th minute from 5 past every hour");
  EXPECT_EQ(describe("10-50/10 * * * *"), "at every 10th minute, 10 through 50 past every hour");
}

TEST(CronDescribe, ClockTimes) {
  EXPECT_EQ(describe("0 3 * * *"), "at 03:00 every day");
  EXPECT_EQ(describe("0 8,12,18 * * *"), "at 08:00, 12:00 and 18:00 every day");
  EXPECT_EQ(describe("15,45 9-17 * * *"), "at minutes 15 and 45 past hours 9 through 17 every day");
}

TEST(CronDescribe, DaysWeekdaysAndMonths) {
  EXPECT_EQ(describe("0 9 * * 1-5"), "at 09:00 on Monday through Friday");
  EXPECT_EQ(describe("*/10 9-17 * * mon-fri"),
            "every 10 minutes, during hours 9 through 17 on Monday through Friday");
  EXPECT_EQ(describe("0 0 1 * *"), "at 00:00 on day 1 of the month");
  EXPECT_EQ(describe("0 0 1-7 * *"), "at 00:00 on days 1 through 7 of the month");
  EXPECT_EQ(describe("0 0 29 2 *"), "at 00:00 on day 29 of the month in February");
  EXPECT_EQ(describe("0 0 1 jan,JUL *"), "at 00:00 on day 1 of the month in January and July");
  EXPECT_EQ(describe("0 0 1 */3 *"), "at 00:00 on day 1 of the month, every 3rd month");
  EXPECT_EQ(describe("0 12 * * */2"), "at 12:00 on every 2nd day of the week");
  EXPECT_EQ(describe("@weekly"), "at 00:00 on Sunday");
  EXPECT_EQ(describe("0 0 * * 7"), "at 00:00 on Sunday");
}

TEST(CronDescribe, SaysWhetherTheDayFieldsAreOredOrAnded) {
  EXPECT_EQ(describe("30 4 1,15 * 5"), "at 04:30 on days 1 and 15 of the month, or on Friday");
  EXPECT_EQ(describe("0 0 */2 * 1"), "at 00:00 on every 2nd day of the month if it is Monday");
}

}  // namespace
}  // namespace orrery
