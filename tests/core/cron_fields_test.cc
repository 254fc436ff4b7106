#include "core/cron_fields.h"

#include <gtest/gtest.h>

namespace orrery {
namespace {

std::uint64_t bits(std::initializer_list<int> values) {
  std::uint64_t out = 0;
  for (int v : values) out |= std::uint64_t{1} << v;
  return out;
}

std::uint64_t bit_range(int lo, int hi, int step = 1) {
  std::uint64_t out = 0;
  for (int v = lo; v <= hi; v += step) out |= std::uint64_t{1} << v;
  return out;
}

CronFields parse_ok(const char* expression) {
  auto parsed = parse_cron_fields(expression);
  EXPECT_TRUE(parsed.ok()) << expression << ": " << (parsed ? "" : parsed.error().message);
  return parsed ? *parsed : CronFields{};
}

std::string parse_error(const char* expression) {
  auto parsed = parse_cron_fields(expression);
  EXPECT_FALSE(parsed.ok()) << expression << " should be rejected";
  return parsed ? "" : parsed.error().message;
}

TEST(CronFields, StarCoversTheWholeRangeOfEveryField) {
  const CronFields cron = parse_ok("* * * * *");
  EXPECT_EQ(cron.minutes, bit_range(0, 59));
  EXPECT_EQ(cron.hours, bit_range(0, 23));
  EXPECT_EQ(cron.days, bit_range(1, 31));
  EXPECT_EQ(cron.months, bit_range(1, 12));
  EXPECT_EQ(cron.weekdays, bit_range(0, 6));
  EXPECT_TRUE(cron.minute_star && cron.hour_star && cron.day_of_month_star &&
              cron.day_of_week_star);
}

TEST(CronFields, ValuesListsRangesAndSteps) {
  const CronFields cron = parse_ok("5,10,15 1-3 */10 2-12/5 1-5");
  EXPECT_EQ(cron.minutes, bits({5, 10, 15}));
  EXPECT_EQ(cron.hours, bits({1, 2, 3}));
  EXPECT_EQ(cron.days, bits({1, 11, 21, 31}));
  EXPECT_EQ(cron.months, bits({2, 7, 12}));
  EXPECT_EQ(cron.weekdays, bits({1, 2, 3, 4, 5}));
}

TEST(CronFields, RangeWithStepAndStartWithStep) {
  EXPECT_EQ(parse_ok("10-50/10 * * * *").minutes, bits({10, 20, 30, 40, 50}));
  // 'a/n' runs from a to the end of the field.
  EXPECT_EQ(parse_ok("5/20 * * * *").minutes, bits({5, 25, 45}));
}

TEST(CronFields, MonthAndWeekdayNamesInAnyCase) {
  const CronFields cron = parse_ok("0 0 * JAN,mar-May Mon-fri");
  EXPECT_EQ(cron.months, bits({1, 3, 4, 5}));
  EXPECT_EQ(cron.weekdays, bits({1, 2, 3, 4, 5}));
  EXPECT_EQ(parse_ok("0 0 * * SUN,sat").weekdays, bits({0, 6}));
  EXPECT_EQ(parse_ok("0 0 * dec *").months, bits({12}));
}

TEST(CronFields, SevenIsSunday) {
  EXPECT_EQ(parse_ok("0 0 * * 7").weekdays, bits({0}));
  EXPECT_EQ(parse_ok("0 0 * * 5-7").weekdays, bits({0, 5, 6}));
  EXPECT_EQ(parse_ok("0 0 * * 0,7").weekdays, bits({0}));
}

TEST(CronFields, MacrosExpandToTheirFields) {
  const struct {
    const char* macro;
    const char* fields;
  } cases[] = {{"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
               {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
               {"@hourly", "0 * * * *"}, {"@DAILY", "0 0 * * *"}};
  for (const auto& c : cases) {
    const CronFields macro = parse_ok(c.macro);
    const CronFields plain = parse_ok(c.fields);
    EXPECT_EQ(macro.minutes, plain.minutes) << c.macro;
    EXPECT_EQ(macro.hours, plain.hours) << c.macro;
    EXPECT_EQ(macro.days, plain.days) << c.macro;
    EXPECT_EQ(macro.months, plain.months) << c.macro;
    EXPECT_EQ(macro.weekdays, plain.weekdays) << c.macro;
    EXPECT_EQ(macro.expression, c.macro);
  }
}

TEST(CronFields, ExtraWhitespaceIsIgnored) {
  EXPECT_EQ(parse_ok("  0\t9  * *   1-5 ").hours, bits({9}));
}

TEST(CronFields, FixedTimeWhenNeitherMinuteNorHourStartsWithStar) {
  EXPECT_TRUE(parse_ok("30 2 * * *").fixed_time());
  EXPECT_TRUE(parse_ok("0,30 1-3 * * *").fixed_time());
  EXPECT_FALSE(parse_ok("*/30 * * * *").fixed_time());
  EXPECT_FALSE(parse_ok("0 * * * *").fixed_time());
  EXPECT_FALSE(parse_ok("* 2 * * *").fixed_time());
  EXPECT_FALSE(parse_ok("0 */2 * * *").fixed_time());
}

TEST(CronFields, DayFieldStartingWithStarIsUnrestricted) {
  EXPECT_TRUE(parse_ok("0 0 */2 * 1").day_of_month_star);
  EXPECT_FALSE(parse_ok("0 0 1-31/2 * 1").day_of_month_star);
  EXPECT_TRUE(parse_ok("0 0 1 * */2").day_of_week_star);
}

// Matching days of a month whose 1st is a Wednesday (3), with 30 days.
TEST(CronFields, MatchingDaysFollowTheVixieOrRule) {
  // Both restricted: the 1st or any Friday (days 3, 10, 17, 24).
  EXPECT_EQ(parse_ok("0 0 1 * 5").matching_days(3, 30), bits({1, 3, 10, 17, 24}));
  // Day-of-month starts with '*': both must match (odd days that are Fridays).
  EXPECT_EQ(parse_ok("0 0 */2 * 5").matching_days(3, 30), bits({3, 17}));
  // Only day-of-week restricted: Fridays.
  EXPECT_EQ(parse_ok("0 0 * * 5").matching_days(3, 30), bits({3, 10, 17, 24}));
  // Only day-of-month restricted, and day 31 does not exist in a 30-day month.
  EXPECT_EQ(parse_ok("0 0 15,31 * *").matching_days(3, 30), bits({15}));
  EXPECT_EQ(parse_ok("0 0 * * *").matching_days(3, 30), bit_range(1, 30));
}

TEST(CronFields, ErrorsNameTheFieldAndValue) {
  EXPECT_EQ(parse_error("0 0 32 * *"), "day-of-month 32 out of range 1-31 in '0 0 32 * *'");
  EXPECT_EQ(parse_error("60 * * * *"), "minute 60 out of range 0-59 in '60 * * * *'");
  EXPECT_EQ(parse_error("0 24 * * *"), "hour 24 out of range 0-23 in '0 24 * * *'");
  EXPECT_EQ(parse_error("0 0 0 * *"), "day-of-month 0 out of range 1-31 in '0 0 0 * *'");
  EXPECT_EQ(parse_error("0 0 * 13 *"), "month 13 out of range 1-12 in '0 0 * 13 *'");
  EXPECT_EQ(parse_error("0 0 * * 8"), "day-of-week 8 out of range 0-7 in '0 0 * * 8'");
  EXPECT_EQ(parse_error("0 0 * foo *"),
            "month value 'foo' is not a number 1-12 or a name jan-dec in '0 0 * foo *'");
  EXPECT_EQ(parse_error("0 0 * * monday"),
            "day-of-week value 'monday' is not a number 0-7 or a name sun-sat in '0 0 * * monday'");
  EXPECT_EQ(parse_error("x * * * *"), "minute value 'x' is not a number 0-59 in 'x * * * *'");
  EXPECT_EQ(parse_error("*/0 * * * *"), "minute step '0' out of range 1-59 in '*/0 * * * *'");
  EXPECT_EQ(parse_error("*/60 * * * *"), "minute step '60' out of range 1-59 in '*/60 * * * *'");
  EXPECT_EQ(parse_error("*/x * * * *"), "minute step 'x' out of range 1-59 in '*/x * * * *'");
  EXPECT_EQ(parse_error("1,,2 * * * *"), "minute has an empty list item in '1,,2 * * * *'");
  EXPECT_EQ(parse_error("50-10 * * * *"),
            "minute range 50-10 is reversed: write it low-high, e.g. 10-50, or as a list in "
            "'50-10 * * * *'");
  EXPECT_EQ(parse_error("1- * * * *"), "minute has an empty value in '1- * * * *'");
}

TEST(CronFields, WrongFieldCountAndMacrosAreExplained) {
  EXPECT_EQ(parse_error("* * * *"),
            "cron '* * * *' has 4 fields: expected 5 (minute hour day-of-month month day-of-week) "
            "or a macro such as @daily");
  EXPECT_EQ(parse_error("0 0 * * * *"),
            "cron '0 0 * * * *' has 6 fields: expected 5 (minute hour day-of-month month "
            "day-of-week) or a macro such as @daily");
  EXPECT_EQ(parse_error("   "),
            "empty cron expression: expected 5 fields (minute hour day-of-month month "
            "day-of-week) such as '*/5 * * * *', or a macro such as @daily");
  EXPECT_EQ(parse_error("@reboot"),
            "unknown cron macro '@reboot': expected @hourly, @daily, @midnight, @weekly, "
            "@monthly, @yearly or @annually");
}

TEST(CronFields, DayThatNoListedMonthHasIsRejected) {
  EXPECT_EQ(parse_error("0 0 31 2 *"),
            "day-of-month 31 never occurs in month 2, so '0 0 31 2 *' never fires");
  EXPECT_EQ(parse_error("0 0 31 4,6,9,11 *"),
            "day-of-month 31 never occurs in month 4,6,9,11, so '0 0 31 4,6,9,11 *' never fires");
  // 30 February never exists, but with a weekday (OR rule) Mondays of February fire.
  EXPECT_TRUE(parse_cron_fields("0 0 30 2 1").ok());
  // 29 February exists in leap years.
  EXPECT_TRUE(parse_cron_fields("0 0 29 2 *").ok());
}

}  // namespace
}  // namespace orrery
