#include "core/civil.h"

#include <gtest/gtest.h>

namespace orrery {
namespace {

bool is_leap(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int month_length(int year, int month) {
  constexpr int kLengths[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : kLengths[month - 1];
}

// Walks every day from 1970-01-01 to 2400-12-31 with a calendar counter kept
// by the test, comparing both conversions with it.
TEST(Civil, DayNumbersMatchACountedCalendarFrom1970To2400) {
  CivilDate date{1970, 1, 1};
  std::int64_t days = 0;
  while (date.year <= 2400) {
    const CivilDate back = civil_from_days(days);
    ASSERT_EQ(back.year, date.year) << days;
    ASSERT_EQ(back.month, date.month) << days;
    ASSERT_EQ(back.day, date.day) << days;
    ASSERT_EQ(days_from_civil(date), days) << date.year << "-" << date.month << "-" << date.day;
    if (++date.day > month_length(date.year, date.month)) {
      date.day = 1;
      if (++date.month > 12) {
        date.month = 1;
        ++date.year;
      }
    }
    ++days;
  }
}

TEST(Civil, KnownDayNumbers) {
  EXPECT_EQ(days_from_civil({1970, 1, 1}), 0);
  EXPECT_EQ(days_from_civil({1971, 1, 1}), 365);
  EXPECT_EQ(days_from_civil({1969, 12, 31}), -1);
  // 30 years of 365 days plus 7 leap days (1972..1996), plus January.
  EXPECT_EQ(days_from_civil({2000, 2, 1}), 30 * 365 + 7 + 31);
  const CivilDate before = civil_from_days(-1);
  EXPECT_EQ(before.year, 1969);
  EXPECT_EQ(before.month, 12);
  EXPECT_EQ(before.day, 31);
}

TEST(Civil, LeapYearsFollowTheGregorianRule) {
  EXPECT_EQ(days_in_month(2000, 2), 29);  // divisible by 400
  EXPECT_EQ(days_in_month(2100, 2), 28);  // divisible by 100 only
  EXPECT_EQ(days_in_month(2024, 2), 29);
  EXPECT_EQ(days_in_month(2026, 2), 28);
  EXPECT_EQ(days_from_civil({2100, 3, 1}) - days_from_civil({2100, 2, 28}), 1);
  EXPECT_EQ(days_from_civil({2000, 3, 1}) - days_from_civil({2000, 2, 28}), 2);
}

TEST(Civil, DaysInMonthForEveryMonth) {
  const int expected[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  for (int month = 1; month <= 12; ++month) {
    EXPECT_EQ(days_in_month(2026, month), expected[month - 1]) << month;
  }
}

TEST(Civil, WeekdayCountsFromThursdayTheFirstOfJanuary1970) {
  EXPECT_EQ(weekday_from_days(0), 4);   // Thursday
  EXPECT_EQ(weekday_from_days(-1), 3);  // Wednesday 1969-12-31
  EXPECT_EQ(weekday_from_days(3), 0);   // Sunday 1970-01-04
  EXPECT_EQ(weekday_from_days(-5), 6);  // Saturday 1969-12-27
  // 2026-03-01 was a Sunday.
  EXPECT_EQ(weekday_from_days(56 * 365 + 14 + 31 + 28), 0);
  for (std::int64_t days = -800; days < 800; ++days) {
    EXPECT_EQ(weekday_from_days(days + 1), (weekday_from_days(days) + 1) % 7) << days;
  }
}

TEST(Civil, FloorDivisionRoundsTowardNegativeInfinity) {
  EXPECT_EQ(floor_div(7, 2), 3);
  EXPECT_EQ(floor_div(-7, 2), -4);
  EXPECT_EQ(floor_div(7, -2), -4);
  EXPECT_EQ(floor_div(-7, -2), 3);
  EXPECT_EQ(floor_div(-6, 2), -3);
  EXPECT_EQ(floor_div(0, 5), 0);
  EXPECT_EQ(floor_div(-1, 86'400'000), -1);
}

TEST(Civil, FloorModTakesTheSignOfTheDivisor) {
  EXPECT_EQ(floor_mod(7, 3), 1);
  EXPECT_EQ(floor_mod(-7, 3), 2);
  EXPECT_EQ(floor_mod(7, -3), -2);
  EXPECT_EQ(floor_mod(-6, 3), 0);
  EXPECT_EQ(floor_mod(-1, 7), 6);
}

TEST(Civil, CeilDivisionRoundsTowardPositiveInfinity) {
  EXPECT_EQ(ceil_div(7, 2), 4);
  EXPECT_EQ(ceil_div(-7, 2), -3);
  EXPECT_EQ(ceil_div(6, 2), 3);
  EXPECT_EQ(ceil_div(1, 1000), 1);
  EXPECT_EQ(ceil_div(0, 1000), 0);
}

}  // namespace
}  // namespace orrery
