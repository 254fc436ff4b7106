#include "core/time.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include "core/timezone.h"

namespace orrery {
namespace {

constexpr TimeMs kSecond = 1000;
constexpr TimeMs kMinute = 60 * kSecond;
constexpr TimeMs kHour = 60 * kMinute;
constexpr TimeMs kDay = 24 * kHour;

// Day numbers since 1970-01-01, by hand: 1970..2025 is 56 years of 365 days
// plus 14 leap days (1972..2024), then January (31) and February (28).
constexpr std::int64_t kMar1 = 56 * 365 + 14 + 31 + 28;  // 2026-03-01, 20513
constexpr std::int64_t kMar8 = kMar1 + 7;
constexpr std::int64_t kMar29 = kMar1 + 28;
constexpr std::int64_t kJul1 = kMar1 + 31 + 30 + 31 + 30;
constexpr std::int64_t kOct1 = kJul1 + 31 + 31 + 30;
constexpr std::int64_t kOct25 = kOct1 + 24;
constexpr std::int64_t kNov1 = kOct1 + 31;

constexpr TimeMs at(std::int64_t day, int hour, int minute = 0, int second = 0, int millis = 0) {
  return day * kDay + hour * kHour + minute * kMinute + second * kSecond + millis;
}

constexpr TimeMs kNow = at(kMar1, 12, 34, 56, 789);

TimeZone zone(std::string_view name) {
  auto result = TimeZone::named(name);
  EXPECT_TRUE(result.ok()) << name;
  return result.ok() ? *result : TimeZone::utc();
}

TimeMs parse_ok(std::string_view text, const TimeZone& tz = TimeZone::utc()) {
  auto result = parse_time(text, kNow, tz);
  EXPECT_TRUE(result.ok()) << text << ": " << (result.ok() ? "" : result.error().message);
  return result.ok() ? *result : -1;
}

// The error message for a rejected input; it must quote the input.
std::string parse_error(std::string_view text) {
  auto result = parse_time(text, kNow, TimeZone::utc());
  if (result.ok()) {
    ADD_FAILURE() << "'" << text << "' was accepted as " << *result;
    return "";
  }
  EXPECT_EQ(result.error().code, ErrorCode::kUsage);
  EXPECT_NE(result.error().message.find(std::string(1, '\'').append(text).append(1, '\'')),
            std::string::npos)
      << result.error().message;
  return result.error().message;
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

TEST(TimeParse, ReadsUtcWithSeconds) {
  EXPECT_EQ(parse_ok("2026-03-01T09:00:00Z"), at(kMar1, 9));
  EXPECT_EQ(parse_ok("1970-01-01T00:00:00Z"), 0);
}

TEST(TimeParse, ReadsFractionsOfASecond) {
  EXPECT_EQ(parse_ok("2026-03-01T09:00:00.123Z"), at(kMar1, 9, 0, 0, 123));
  EXPECT_EQ(parse_ok("2026-03-01T09:00:00.1Z"), at(kMar1, 9, 0, 0, 100));
  EXPECT_EQ(parse_ok("2026-03-01T09:00:00.12Z"), at(kMar1, 9, 0, 0, 120));
  EXPECT_EQ(parse_ok("2026-03-01T09:00:00.123456Z"), at(kMar1, 9, 0, 0, 123));
  EXPECT_EQ(parse_ok("2026-03-01T09:00:00.999999999Z"), at(kMar1, 9, 0, 0, 999));
  EXPECT_EQ(parse_ok("2026-03-01T09:00:00,5Z"), at(kMar1, 9, 0, 0, 500));
}

TEST(TimeParse, SecondsAreOptional) {
  EXPECT_EQ(parse_ok("2026-03-01T09:00Z"), at(kMar1, 9));
  EXPECT_EQ(parse_ok("2026-03-01T09:05:07Z"), at(kMar1, 9, 5, 7));
}

TEST(TimeParse, SubtractsAnOffsetDesignator) {
  EXPECT_EQ(parse_ok("2026-03-01T09:00+01:00"), at(kMar1, 8));
  EXPECT_EQ(parse_ok("2026-03-01T09:00:00-0530"), at(kMar1, 14, 30));
  EXPECT_EQ(parse_ok("2026-03-01T09:00+02"), at(kMar1, 7));
  EXPECT_EQ(parse_ok("2026-03-01T09:00-00:00"), at(kMar1, 9));
}

TEST(TimeParse, ADesignatorOverridesTheGivenZone) {
  EXPECT_EQ(parse_ok("2026-03-01T09:00Z", zone("Europe/Berlin")), at(kMar1, 9));
  EXPECT_EQ(parse_ok("2026-03-01T09:00+01:00", zone("America/New_York")), at(kMar1, 8));
}

TEST(TimeParse, AcceptsLowercaseDesignatorsAndASpaceSeparator) {
  EXPECT_EQ(parse_ok("2026-03-01t09:00:00z"), at(kMar1, 9));
  EXPECT_EQ(parse_ok("2026-03-01 09:00:00Z"), at(kMar1, 9));
}

TEST(TimeParse, ADateAloneIsLocalMidnight) {
  EXPECT_EQ(parse_ok("2026-03-01"), at(kMar1, 0));
  EXPECT_EQ(parse_ok("2026-03-01", zone("Europe/Berlin")), at(kMar1, 0) - kHour);
  EXPECT_EQ(parse_ok("2026-03-01", zone("America/New_York")), at(kMar1, 5));
}

TEST(TimeParse, WithoutADesignatorIsWallTimeInTheZone) {
  const TimeZone berlin = zone("Europe/Berlin");
  EXPECT_EQ(parse_ok("2026-03-01T09:00", berlin), at(kMar1, 8));   // CET, +01:00
  EXPECT_EQ(parse_ok("2026-07-01 12:00", berlin), at(kJul1, 10));  // CEST, +02:00
  const TimeZone new_york = zone("America/New_York");
  EXPECT_EQ(parse_ok("2026-03-01T09:00", new_york), at(kMar1, 14));  // EST, -05:00
  EXPECT_EQ(parse_ok("2026-07-01T12:00", new_york), at(kJul1, 16));  // EDT, -04:00
}

TEST(TimeParse, AWallTimeInASpringGapIsTheFirstInstantAfterIt) {
  // Berlin skips 02:00-03:00 on 2026-03-29 (01:00Z); New York skips
  // 02:00-03:00 on 2026-03-08 (07:00Z).
  EXPECT_EQ(parse_ok("2026-03-29T02:30", zone("Europe/Berlin")), at(kMar29, 1));
  EXPECT_EQ(parse_ok("2026-03-08T02:30", zone("America/New_York")), at(kMar8, 7));
}

TEST(TimeParse, AnAmbiguousWallTimeIsItsFirstOccurrence) {
  // Berlin repeats 02:00-03:00 on 2026-10-25, first at +02:00; New York
  // repeats 01:00-02:00 on 2026-11-01, first at -04:00.
  EXPECT_EQ(parse_ok("2026-10-25T02:30", zone("Europe/Berlin")), at(kOct25, 0, 30));
  EXPECT_EQ(parse_ok("2026-11-01T01:30", zone("America/New_York")), at(kNov1, 5, 30));
}

TEST(TimeParse, RelativeTimesAddToNow) {
  EXPECT_EQ(parse_ok("+10m"), kNow + 10 * kMinute);
  EXPECT_EQ(parse_ok("+1h30m"), kNow + 90 * kMinute);
  EXPECT_EQ(parse_ok("+0s"), kNow);
  EXPECT_EQ(parse_ok("now"), kNow);
}

TEST(TimeParse, RejectsDatesThatDoNotExist) {
  EXPECT_TRUE(contains(parse_error("2026-02-30T00:00Z"), "day 30 out of range 1-28"));
  EXPECT_TRUE(contains(parse_error("2026-13-01T00:00Z"), "month 13 out of range 1-12"));
  EXPECT_TRUE(contains(parse_error("2026-00-01T00:00Z"), "month 0 out of range"));
  EXPECT_TRUE(contains(parse_error("2025-02-29"), "day 29 out of range 1-28"));
  EXPECT_EQ(parse_ok("2024-02-29"), at(kMar1 - 365 - 365 - 1, 0));  // the leap day exists
}

TEST(TimeParse, RejectsTimesOfDayOutOfRange) {
  EXPECT_TRUE(contains(parse_error("2026-03-01T24:00Z"), "hour 24 out of range 0-23"));
  EXPECT_TRUE(contains(parse_error("2026-03-01T09:60Z"), "minute 60 out of range 0-59"));
  EXPECT_TRUE(contains(parse_error("2026-03-01T09:00:60Z"), "second 60 out of range 0-59"));
}

TEST(TimeParse, RejectsYearsOutsideTheSupportedRange) {
  EXPECT_TRUE(contains(parse_error("1969-12-31T23:59Z"), "year 1969 out of range 1970-9999"));
}

TEST(TimeParse, RejectsTextThatIsNotATime) {
  for (const char* text :
       {"yesterday", "2026-03-01T09", "2026-03-01T09:00Zjunk", "2026-03-01T09:00:00.Z",
        "2026-03-01T09:00:00.1234567890Z", "2026-3-1", "", "2026-03-01T09:00+1"}) {
    EXPECT_TRUE(contains(parse_error(text), "expected ISO 8601")) << text;
  }
}

TEST(TimeParse, RejectsAMalformedRelativeTime) {
  EXPECT_TRUE(contains(parse_error("+abc"), "expected + followed by a duration"));
  EXPECT_TRUE(contains(parse_error("+"), "expected + followed by a duration"));
  EXPECT_TRUE(contains(parse_error("+-5m"), "expected + followed by a duration"));
}

TEST(TimeParse, RejectsAnOffsetOutOfRange) {
  EXPECT_TRUE(contains(parse_error("2026-03-01T09:00+25:00"), "offset out of range"));
  EXPECT_TRUE(contains(parse_error("2026-03-01T09:00+01:60"), "offset out of range"));
}

TEST(TimeParse, RejectsARelativeTimeBeyondTheSupportedYears) {
  // About 8200 years after 2026: past 9999, which format_time cannot write.
  parse_error("+3000000d");
}

// A relative time whose sum passes INT64_MAX must be an error, not signed
// overflow (which the sanitizer build aborts on, hence the child process).
TEST(TimeParse, RejectsARelativeTimeThatOverflows) {
  auto result = parse_time("+9223372036854775807ms", kNow, TimeZone::utc());
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("'+9223372036854775807ms'"), std::string::npos);
}

TEST(TimeFormat, WritesIsoUtcWithMilliseconds) {
  EXPECT_EQ(format_time(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(format_time(at(kMar1, 9, 5, 7, 123)), "2026-03-01T09:05:07.123Z");
  EXPECT_EQ(format_time(at(kOct25, 23, 59, 59, 9)), "2026-10-25T23:59:59.009Z");
}

TEST(TimeFormat, TimesOutsideTheYears1970To9999AreClampedNeverGarbled) {
  EXPECT_EQ(format_time(kLatestTime), "9999-12-31T23:59:59.999Z");
  for (TimeMs beyond :
       {kLatestTime + 1, kLatestTime + kDay, TimeMs{1} << 53, std::numeric_limits<TimeMs>::max()}) {
    EXPECT_EQ(format_time(beyond), "9999-12-31T23:59:59.999Z") << beyond;
  }
  for (TimeMs before : {TimeMs{-1}, -kDay, std::numeric_limits<TimeMs>::min()}) {
    EXPECT_EQ(format_time(before), "1970-01-01T00:00:00.000Z") << before;
  }
}

TEST(TimeArithmetic, CheckedAddStaysWithinTheYearsOrGivesNothing) {
  EXPECT_EQ(add_checked(0, 5), TimeMs{5});
  EXPECT_EQ(add_checked(kLatestTime - 1, 1), kLatestTime);
  EXPECT_EQ(add_checked(kLatestTime, 1), std::nullopt);
  EXPECT_EQ(add_checked(kLatestTime, 0), kLatestTime);
  EXPECT_EQ(add_checked(0, -1), std::nullopt);
  EXPECT_EQ(add_checked(kNow, std::numeric_limits<DurationMs>::max()), std::nullopt);
  EXPECT_EQ(add_checked(std::numeric_limits<TimeMs>::max(), 1), std::nullopt);
  EXPECT_EQ(add_checked(std::numeric_limits<TimeMs>::min(), -1), std::nullopt);
}

TEST(TimeArithmetic, SaturatingAddClampsToTheYearsAndNeverOverflows) {
  EXPECT_EQ(add_saturating(kNow, 1000), kNow + 1000);
  EXPECT_EQ(add_saturating(kNow, std::numeric_limits<DurationMs>::max()), kLatestTime);
  EXPECT_EQ(add_saturating(std::numeric_limits<TimeMs>::max(), 1), kLatestTime);
  EXPECT_EQ(add_saturating(kNow, std::numeric_limits<DurationMs>::min()), kEarliestTime);
  EXPECT_EQ(add_saturating(std::numeric_limits<TimeMs>::min(), -1), kEarliestTime);
  EXPECT_EQ(add_saturating(kLatestTime, kDay), kLatestTime);
}

TEST(TimeFormat, ParseOfFormatGivesTheSameInstant) {
  // 9999-12-31T23:59:59.999Z, the last instant orrery accepts in text.
  constexpr TimeMs kLast = 253'402'300'799'999;
  std::uint64_t state = 42;
  std::vector<TimeMs> times = {0, 1, 999, kDay - 1, kDay, at(kMar29, 1), at(kOct25, 1), kLast};
  for (int i = 0; i < 5000; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    times.push_back(TimeMs((state >> 11) % std::uint64_t(kLast + 1)));
  }
  for (TimeMs time : times) {
    const std::string text = format_time(time);
    auto parsed = parse_time(text, kNow, TimeZone::utc());
    ASSERT_TRUE(parsed.ok()) << time << " -> " << text << ": " << parsed.error().message;
    EXPECT_EQ(*parsed, time) << text;
  }
}

}  // namespace
}  // namespace orrery
