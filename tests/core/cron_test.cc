#include "core/cron.h"

#include <gtest/gtest.h>

#include <vector>

#include "support/time_literals.h"

namespace orrery {
namespace {

using testing::at;
using testing::iso;
using testing::zone;

CronSchedule cron_in(const std::string& expression, const std::string& zone_name = "UTC") {
  auto parsed = CronSchedule::parse(expression, zone(zone_name));
  EXPECT_TRUE(parsed.ok()) << expression << ": " << (parsed ? "" : parsed.error().message);
  return parsed ? *parsed : *CronSchedule::parse("* * * * *", TimeZone::utc());
}

// The next n fire instants after `from`, as ISO strings.
std::vector<std::string> next_n(const CronSchedule& cron, const std::string& from, int n) {
  std::vector<std::string> out;
  TimeMs t = at(from);
  for (int i = 0; i < n; ++i) {
    auto next = cron.next_after(t);
    EXPECT_TRUE(next.ok()) << (next ? "" : next.error().message);
    if (!next) break;
    out.push_back(iso(t = *next));
  }
  return out;
}

std::vector<std::string> previous_n(const CronSchedule& cron, const std::string& before, int n) {
  std::vector<std::string> out;
  TimeMs t = at(before);
  for (int i = 0; i < n; ++i) {
    auto previous = cron.latest_before(t);
    EXPECT_TRUE(previous.ok()) << (previous ? "" : previous.error().message);
    if (!previous) break;
    out.push_back(iso(t = *previous));
  }
  return out;
}

using Times = std::vector<std::string>;

// 2026-01-01 is a Thursday.
TEST(Cron, EveryFiveMinutes) {
  EXPECT_EQ(
      next_n(cron_in("*/5 * * * *"), "2026-01-01T00:02:30Z", 3),
      (Times{"2026-01-01T00:05:00.000Z", "2026-01-01T00:10:00.000Z", "2026-01-01T00:15:00.000Z"}));
}

TEST(Cron, NextIsStrictlyAfterAFireTime) {
  EXPECT_EQ(next_n(cron_in("0 3 * * *"), "2026-01-01T03:00:00Z", 1),
            (Times{"2026-01-02T03:00:00.000Z"}));
  EXPECT_EQ(next_n(cron_in("0 3 * * *"), "2026-01-01T02:59:59.999Z", 1),
            (Times{"2026-01-01T03:00:00.000Z"}));
}

TEST(Cron, WeekdaysSkipTheWeekend) {
  EXPECT_EQ(next_n(cron_in("0 9 * * 1-5"), "2026-01-02T10:00:00Z", 2),
            (Times{"2026-01-05T09:00:00.000Z", "2026-01-06T09:00:00.000Z"}));
}

TEST(Cron, FirstOfTheMonth) {
  EXPECT_EQ(
      next_n(cron_in("0 0 1 * *"), "2026-01-15T00:00:00Z", 3),
      (Times{"2026-02-01T00:00:00.000Z", "2026-03-01T00:00:00.000Z", "2026-04-01T00:00:00.000Z"}));
}

TEST(Cron, DayOfMonthOrDayOfWeekWhenBothRestricted) {
  // The 1st and 15th, or any Friday: Fri 2, Fri 9, Thu 15, Fri 16.
  EXPECT_EQ(next_n(cron_in("30 4 1,15 * 5"), "2026-01-01T05:00:00Z", 4),
            (Times{"2026-01-02T04:30:00.000Z", "2026-01-09T04:30:00.000Z",
                   "2026-01-15T04:30:00.000Z", "2026-01-16T04:30:00.000Z"}));
}

// The reference treats only a bare '*' as unrestricted and would OR these
// fields (firing on Saturday 3 January, an odd day); crontab ANDs them.
TEST(Cron, DayFieldWithStarStepIsAndedWithTheOther) {
  EXPECT_EQ(next_n(cron_in("0 0 */2 * 1"), "2026-01-02T00:00:00Z", 2),
            (Times{"2026-01-05T00:00:00.000Z", "2026-01-19T00:00:00.000Z"}));
}

TEST(Cron, SevenAndZeroAreSunday) {
  EXPECT_EQ(next_n(cron_in("0 0 * * 7"), "2026-01-01T00:00:00Z", 1),
            (Times{"2026-01-04T00:00:00.000Z"}));
  EXPECT_EQ(next_n(cron_in("0 0 * * sun"), "2026-01-01T00:00:00Z", 1),
            (Times{"2026-01-04T00:00:00.000Z"}));
}

TEST(Cron, MonthNamesAndYearEnd) {
  EXPECT_EQ(next_n(cron_in("0 12 1 jan,jul *"), "2026-02-01T00:00:00Z", 2),
            (Times{"2026-07-01T12:00:00.000Z", "2027-01-01T12:00:00.000Z"}));
  EXPECT_EQ(next_n(cron_in("15 10 * * *"), "2026-12-31T11:00:00Z", 1),
            (Times{"2027-01-01T10:15:00.000Z"}));
}

TEST(Cron, Macros) {
  EXPECT_EQ(next_n(cron_in("@yearly"), "2026-06-01T00:00:00Z", 1),
            (Times{"2027-01-01T00:00:00.000Z"}));
  EXPECT_EQ(next_n(cron_in("@weekly"), "2026-01-01T00:00:00Z", 1),
            (Times{"2026-01-04T00:00:00.000Z"}));
  EXPECT_EQ(next_n(cron_in("@hourly"), "2026-01-01T00:00:00Z", 2),
            (Times{"2026-01-01T01:00:00.000Z", "2026-01-01T02:00:00.000Z"}));
}

// The reference gives up after a year; the next 29 February is two years on.
TEST(Cron, FindsTheNextLeapDayYearsAway) {
  EXPECT_EQ(next_n(cron_in("0 0 29 2 *", "America/New_York"), "2026-03-01T05:00:00Z", 2),
            (Times{"2028-02-29T05:00:00.000Z", "2032-02-29T05:00:00.000Z"}));
  // 2100 is not a leap year: from 2096 the next is 2104, almost eight years.
  EXPECT_EQ(next_n(cron_in("0 0 29 2 *"), "2096-03-01T00:00:00Z", 1),
            (Times{"2104-02-29T00:00:00.000Z"}));
}

TEST(Cron, PreviousFireTimes) {
  EXPECT_EQ(previous_n(cron_in("0 0 1 * *"), "2026-03-15T00:00:00Z", 2),
            (Times{"2026-03-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z"}));
  // Strictly before: a fire time itself is not its own predecessor.
  EXPECT_EQ(previous_n(cron_in("0 0 1 * *"), "2026-03-01T00:00:00Z", 1),
            (Times{"2026-02-01T00:00:00.000Z"}));
  EXPECT_EQ(previous_n(cron_in("0 0 29 2 *"), "2026-03-01T00:00:00Z", 1),
            (Times{"2024-02-29T00:00:00.000Z"}));
  EXPECT_EQ(
      previous_n(cron_in("30 4 1,15 * 5"), "2026-01-16T00:00:00Z", 3),
      (Times{"2026-01-15T04:30:00.000Z", "2026-01-09T04:30:00.000Z", "2026-01-02T04:30:00.000Z"}));
}

TEST(Cron, ParseErrorsComeFromTheFields) {
  auto parsed = CronSchedule::parse("0 0 32 * *", TimeZone::utc());
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().message, "day-of-month 32 out of range 1-31 in '0 0 32 * *'");
  EXPECT_EQ(parsed.error().code, ErrorCode::kUsage);
}

// New York, 2026: clocks spring forward on 8 March at 02:00 EST (07:00Z) to
// 03:00 EDT, and fall back on 1 November at 02:00 EDT (06:00Z) to 01:00 EST.
TEST(CronDst, FixedTimeInTheSpringGapFiresOnceAfterTheGapInNewYork) {
  EXPECT_EQ(next_n(cron_in("30 2 * * *", "America/New_York"), "2026-03-07T12:00:00Z", 3),
            (Times{"2026-03-08T07:00:00.000Z",  // 03:00 EDT, the first instant after the gap
                   "2026-03-09T06:30:00.000Z",  // 02:30 EDT
                   "2026-03-10T06:30:00.000Z"}));
}

TEST(CronDst, FixedTimeOnFallBackDayFiresOnceInNewYork) {
  // 02:30 exists once on 1 November (after the repeat, in EST).
  EXPECT_EQ(
      next_n(cron_in("30 2 * * *", "America/New_York"), "2026-10-31T12:00:00Z", 3),
      (Times{"2026-11-01T07:30:00.000Z", "2026-11-02T07:30:00.000Z", "2026-11-03T07:30:00.000Z"}));
  // 01:30 occurs twice; it fires at the first occurrence (EDT) only.
  EXPECT_EQ(next_n(cron_in("30 1 * * *", "America/New_York"), "2026-10-31T12:00:00Z", 2),
            (Times{"2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"}));
}

TEST(CronDst, SeveralTimesInTheGapFireTogetherOnce) {
  EXPECT_EQ(next_n(cron_in("0,15,30,45 2 * * *", "America/New_York"), "2026-03-08T06:00:00Z", 2),
            (Times{"2026-03-08T07:00:00.000Z", "2026-03-09T06:00:00.000Z"}));
  // 02:00 (skipped) and 03:00 name the same instant: one fire.
  EXPECT_EQ(next_n(cron_in("0 2,3 * * *", "America/New_York"), "2026-03-08T06:00:00Z", 2),
            (Times{"2026-03-08T07:00:00.000Z", "2026-03-09T06:00:00.000Z"}));
}

TEST(CronDst, WildcardFollowsRealTimeThroughTheGapInNewYork) {
  // 01:00 and 01:30 EST, then 03:00 and 03:30 EDT: nothing inside the gap.
  EXPECT_EQ(next_n(cron_in("*/30 * * * *", "America/New_York"), "2026-03-08T05:45:00Z", 4),
            (Times{"2026-03-08T06:00:00.000Z", "2026-03-08T06:30:00.000Z",
                   "2026-03-08T07:00:00.000Z", "2026-03-08T07:30:00.000Z"}));
}

TEST(CronDst, WildcardFiresInBothOccurrencesOfTheRepeatedHourInNewYork) {
  EXPECT_EQ(next_n(cron_in("*/30 * * * *", "America/New_York"), "2026-11-01T04:45:00Z", 5),
            (Times{"2026-11-01T05:00:00.000Z",     // 01:00 EDT
                   "2026-11-01T05:30:00.000Z",     // 01:30 EDT
                   "2026-11-01T06:00:00.000Z",     // 01:00 EST
                   "2026-11-01T06:30:00.000Z",     // 01:30 EST
                   "2026-11-01T07:00:00.000Z"}));  // 02:00 EST
}

// Berlin, 2026: 29 March 02:00 CET (01:00Z) -> 03:00 CEST; 25 October
// 03:00 CEST (01:00Z) -> 02:00 CET.
TEST(CronDst, FixedTimeInTheSpringGapFiresOnceAfterTheGapInBerlin) {
  EXPECT_EQ(next_n(cron_in("30 2 * * *", "Europe/Berlin"), "2026-03-28T12:00:00Z", 2),
            (Times{"2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z"}));
}

TEST(CronDst, FixedTimeInTheRepeatedHourFiresAtTheFirstOccurrenceInBerlin) {
  EXPECT_EQ(next_n(cron_in("30 2 * * *", "Europe/Berlin"), "2026-10-24T12:00:00Z", 2),
            (Times{"2026-10-25T00:30:00.000Z",     // 02:30 CEST
                   "2026-10-26T01:30:00.000Z"}));  // 02:30 CET, next day
}

TEST(CronDst, WildcardThroughBothTransitionsInBerlin) {
  EXPECT_EQ(
      next_n(cron_in("*/30 * * * *", "Europe/Berlin"), "2026-03-29T00:15:00Z", 3),
      (Times{"2026-03-29T00:30:00.000Z", "2026-03-29T01:00:00.000Z", "2026-03-29T01:30:00.000Z"}));
  EXPECT_EQ(next_n(cron_in("*/30 * * * *", "Europe/Berlin"), "2026-10-25T00:15:00Z", 4),
            (Times{"2026-10-25T00:30:00.000Z",     // 02:30 CEST
                   "2026-10-25T01:00:00.000Z",     // 02:00 CET
                   "2026-10-25T01:30:00.000Z",     // 02:30 CET
                   "2026-10-25T02:00:00.000Z"}));  // 03:00 CET
}

TEST(CronDst, PreviousAcrossTransitionsMirrorsNext) {
  EXPECT_EQ(previous_n(cron_in("30 2 * * *", "America/New_York"), "2026-03-09T00:00:00Z", 2),
            (Times{"2026-03-08T07:00:00.000Z", "2026-03-07T07:30:00.000Z"}));
  EXPECT_EQ(previous_n(cron_in("30 1 * * *", "America/New_York"), "2026-11-01T07:00:00Z", 2),
            (Times{"2026-11-01T05:30:00.000Z", "2026-10-31T05:30:00.000Z"}));
  EXPECT_EQ(previous_n(cron_in("*/30 * * * *", "America/New_York"), "2026-11-01T06:45:00Z", 4),
            (Times{"2026-11-01T06:30:00.000Z", "2026-11-01T06:00:00.000Z",
                   "2026-11-01T05:30:00.000Z", "2026-11-01T05:00:00.000Z"}));
}

// Lord Howe Island moves its clocks by 30 minutes: on 4 October 2026 02:00
// (+10:30, 15:30Z the day before) becomes 02:30 (+11:00).
TEST(CronDst, HalfHourShiftOnLordHowe) {
  EXPECT_EQ(next_n(cron_in("15 2 * * *", "Australia/Lord_Howe"), "2026-10-03T12:00:00Z", 2),
            (Times{"2026-10-03T15:30:00.000Z", "2026-10-04T15:15:00.000Z"}));
}

}  // namespace
}  // namespace orrery
