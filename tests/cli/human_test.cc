#include "cli/human.h"

#include <gtest/gtest.h>

#include <limits>
#include <sstream>

namespace orrery::cli {
namespace {

constexpr TimeMs kSecond = 1000;
constexpr TimeMs kMinute = 60 * kSecond;
constexpr TimeMs kHour = 60 * kMinute;
constexpr TimeMs kDay = 24 * kHour;

// Day numbers since 1970-01-01: 56 years of 365 days plus 14 leap days
// (1972..2024) reach 2026-01-01.
constexpr std::int64_t kJan1 = 56 * 365 + 14;
constexpr std::int64_t kMar1 = kJan1 + 31 + 28;
constexpr std::int64_t kJul1 = kMar1 + 31 + 30 + 31 + 30;
constexpr std::int64_t kNov30 = kJul1 + 31 + 31 + 30 + 31 + 29;

TimeZone zone(std::string_view name) {
  auto result = TimeZone::named(name);
  EXPECT_TRUE(result.ok()) << name;
  return result.ok() ? *result : TimeZone::utc();
}

TEST(HumanFormatWall, WritesUtcWallTimeWithZeroOffset) {
  EXPECT_EQ(format_wall(kMar1 * kDay + 9 * kHour, TimeZone::utc()), "2026-03-01 09:00 +00:00");
}

TEST(HumanFormatWall, ShowsSecondsAndMillisecondsOnlyWhenNonZero) {
  const TimeMs nine = kMar1 * kDay + 9 * kHour;
  EXPECT_EQ(format_wall(nine + 5 * kSecond, TimeZone::utc()), "2026-03-01 09:00:05 +00:00");
  EXPECT_EQ(format_wall(nine + 5 * kSecond + 250, TimeZone::utc()),
            "2026-03-01 09:00:05.250 +00:00");
  EXPECT_EQ(format_wall(nine + 7, TimeZone::utc()), "2026-03-01 09:00:00.007 +00:00");
}

TEST(HumanFormatWall, WritesBerlinWallTimeWithItsOffset) {
  const TimeZone berlin = zone("Europe/Berlin");
  EXPECT_EQ(format_wall(kNov30 * kDay + 8 * kHour, berlin), "2026-11-30 09:00 +01:00");
  EXPECT_EQ(format_wall(kJul1 * kDay + 8 * kHour, berlin), "2026-07-01 10:00 +02:00");
  // 23:30Z on 31 December is already the next year in Berlin.
  EXPECT_EQ(format_wall((kJan1 - 1) * kDay + 23 * kHour + 30 * kMinute, berlin),
            "2026-01-01 00:30 +01:00");
}

// Every printed time stays within 1970-9999, never garbled.
TEST(HumanFormatWall, TimesAtTheEndsOfTheYearsArePrintedWithinThem) {
  EXPECT_EQ(format_wall(kLatestTime, TimeZone::utc()), "9999-12-31 23:59:59.999 +00:00");
  // In Tokyo the last instant would be 10000-01-01 08:59: it is shown in UTC.
  EXPECT_EQ(format_wall(kLatestTime, zone("Asia/Tokyo")), "9999-12-31 23:59:59.999 +00:00");
  EXPECT_EQ(format_wall(kLatestTime - 10 * kHour + 1, zone("Asia/Tokyo")),
            "9999-12-31 23:00 +09:00");
  constexpr TimeMs kMax = std::numeric_limits<TimeMs>::max();
  EXPECT_EQ(format_wall(kMax, TimeZone::utc()), "9999-12-31 23:59:59.999 +00:00");
  EXPECT_EQ(format_wall(kMax, zone("Asia/Tokyo")), "9999-12-31 23:59:59.999 +00:00");
  EXPECT_EQ(format_wall(kMax, zone("America/New_York")), "9999-12-31 18:59:59.999 -05:00");
  EXPECT_EQ(format_wall(std::numeric_limits<TimeMs>::min(), zone("Asia/Tokyo")),
            "1970-01-01 09:00 +09:00");
  EXPECT_EQ(format_wall(0, zone("America/New_York")), "1970-01-01 00:00 +00:00");
}

TEST(HumanFormatWall, WritesNegativeAndHalfHourOffsets) {
  const TimeMs noon = kMar1 * kDay + 12 * kHour;
  EXPECT_EQ(format_wall(noon, zone("America/New_York")), "2026-03-01 07:00 -05:00");
  EXPECT_EQ(format_wall(noon, zone("Asia/Kolkata")), "2026-03-01 17:30 +05:30");
  EXPECT_EQ(format_wall(noon, zone("America/St_Johns")), "2026-03-01 08:30 -03:30");
}

TEST(HumanPrintFields, AlignsValuesTwoSpacesAfterTheLongestLabel) {
  std::ostringstream out;
  print_fields(out, {{"id", "abc"}, {"schedule", "*/5 * * * *"}, {"", "more"}});
  EXPECT_EQ(out.str(),
            "id        abc\n"
            "schedule  */5 * * * *\n"
            "          more\n");
}

TEST(HumanPrintFields, PrintsNothingForNoRows) {
  std::ostringstream out;
  print_fields(out, {});
  EXPECT_EQ(out.str(), "");
}

TEST(HumanPrintFields, EscapesLabelsAndValues) {
  std::ostringstream out;
  print_fields(out, {{"name", "two\nlines\x1b[31m"}, {"x", "ok"}});
  EXPECT_EQ(out.str(),
            "name  two\\nlines\\x1b[31m\n"
            "x     ok\n");
}

TEST(HumanPrintTable, AlignsColumnsByCodePointsNotBytes) {
  std::ostringstream out;
  print_table(out, {"ID", "NAME", "STATUS"},
              {{"1", "caf\xc3\xa9", "active"}, {"2", "\xe6\x97\xa5\xe6\x9c\xac", "paused"}});
  EXPECT_EQ(out.str(),
            "ID  NAME  STATUS\n"
            "1   caf\xc3\xa9  active\n"
            "2   \xe6\x97\xa5\xe6\x9c\xac    paused\n");
}

TEST(HumanPrintTable, EscapedCellsKeepOneRowPerLineAndAlignOnTheirEscapes) {
  std::ostringstream out;
  print_table(out, {"NAME", "X"}, {{"a\nb", "1"}, {"\xff", "2"}, {"tab\there", "3"}});
  EXPECT_EQ(out.str(),
            "NAME       X\n"
            "a\\nb       1\n"
            "\\xff       2\n"
            "tab\\there  3\n");
}

TEST(HumanFormatCount, GroupsThousands) {
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(1000), "1,000");
  EXPECT_EQ(format_count(1234567), "1,234,567");
  EXPECT_EQ(format_count(-1234), "-1,234");
}

}  // namespace
}  // namespace orrery::cli
