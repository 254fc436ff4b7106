#include "core/timezone.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace orrery {
namespace {

constexpr TimeMs kMinute = 60'000;
constexpr TimeMs kHour = 60 * kMinute;
constexpr TimeMs kDay = 24 * kHour;

// 2026-03-01 as a day number: 56 years of 365 days from 1970, 14 leap days
// (1972..2024), January and February.
constexpr std::int64_t kMar1 = 56 * 365 + 14 + 31 + 28;
constexpr std::int64_t kJan15 = kMar1 - 31 - 28 + 14;
constexpr std::int64_t kMar29 = kMar1 + 28;
constexpr std::int64_t kJul1 = kMar1 + 31 + 30 + 31 + 30;
constexpr std::int64_t kOct25 = kJul1 + 31 + 31 + 30 + 24;

// Europe/Berlin in 2026: CET (+1) until 2026-03-29T01:00Z, CEST (+2) until
// 2026-10-25T01:00Z.
constexpr TimeMs kSpringForward = kMar29 * kDay + kHour;
constexpr TimeMs kFallBack = kOct25 * kDay + kHour;
// 9999-12-31T23:59:59.999Z, the last instant orrery accepts in text.
constexpr TimeMs kLast9999 = 253'402'300'799'999;

TimeZone zone(std::string_view name) {
  auto result = TimeZone::named(name);
  EXPECT_TRUE(result.ok()) << name << ": " << (result.ok() ? "" : result.error().message);
  return result.ok() ? *result : TimeZone::utc();
}

// Sets TZ for one test and restores the previous value afterwards.
class ScopedTz {
 public:
  explicit ScopedTz(const char* value) {
    if (const char* old = std::getenv("TZ")) saved_ = old;
    setenv("TZ", value, 1);
  }
  ~ScopedTz() {
    if (saved_) {
      setenv("TZ", saved_->c_str(), 1);
    } else {
      unsetenv("TZ");
    }
  }

 private:
  std::optional<std::string> saved_;
};

TEST(TimeZone, NamedFindsAnIanaZone) {
  const TimeZone berlin = zone("Europe/Berlin");
  EXPECT_EQ(berlin.name(), "Europe/Berlin");
  EXPECT_FALSE(berlin.is_utc());
}

TEST(TimeZone, NamedUtcIsOneSegmentWithZeroOffset) {
  const TimeZone utc = zone("UTC");
  EXPECT_TRUE(utc.is_utc());
  EXPECT_EQ(utc.name(), "UTC");
  const ZoneSegment segment = utc.segment_at(kSpringForward);
  EXPECT_EQ(segment.begin, kEarliestInstant);
  EXPECT_EQ(segment.end, kLatestInstant);
  EXPECT_EQ(segment.offset, 0);
  EXPECT_EQ(utc.from_wall(kSpringForward), kSpringForward);
}

TEST(TimeZone, NamedRejectsAnUnknownZoneNamingIt) {
  for (const char* name : {"Mars/Olympus_Mons", "", "../../etc/passwd", "europe/berlin"}) {
    auto result = TimeZone::named(name);
    ASSERT_FALSE(result.ok()) << name;
    EXPECT_EQ(result.error().code, ErrorCode::kUsage);
    EXPECT_NE(result.error().message.find("unknown time zone '" + std::string(name) + "'"),
              std::string::npos)
        << result.error().message;
  }
}

TEST(TimeZone, SegmentInWinterHasOffsetOneHour) {
  const TimeMs winter = kJan15 * kDay + 12 * kHour;
  const ZoneSegment segment = zone("Europe/Berlin").segment_at(winter);
  EXPECT_EQ(segment.offset, kHour);
  EXPECT_LE(segment.begin, winter);
  EXPECT_GT(segment.end, winter);
  EXPECT_EQ(segment.end, kSpringForward);
}

TEST(TimeZone, SegmentInSummerHasOffsetTwoHours) {
  const TimeMs summer = kJul1 * kDay + 12 * kHour;
  const ZoneSegment segment = zone("Europe/Berlin").segment_at(summer);
  EXPECT_EQ(segment.offset, 2 * kHour);
  EXPECT_EQ(segment.begin, kSpringForward);
  EXPECT_EQ(segment.end, kFallBack);
}

TEST(TimeZone, SegmentBoundariesAreHalfOpen) {
  const TimeZone berlin = zone("Europe/Berlin");
  EXPECT_EQ(berlin.offset_at(kSpringForward - 1), kHour);
  EXPECT_EQ(berlin.offset_at(kSpringForward), 2 * kHour);
  EXPECT_EQ(berlin.offset_at(kFallBack - 1), 2 * kHour);
  EXPECT_EQ(berlin.offset_at(kFallBack), kHour);
}

TEST(TimeZone, SegmentsAreContiguousAndContainTheirInstants) {
  for (const char* name : {"Europe/Berlin", "America/New_York", "Australia/Sydney"}) {
    const TimeZone tz = zone(name);
    TimeMs instant = 0;  // 1970 to past 2040
    for (int i = 0; i < 200 && instant < 71 * 365 * kDay; ++i) {
      const ZoneSegment segment = tz.segment_at(instant);
      ASSERT_LE(segment.begin, instant) << name << " " << instant;
      ASSERT_GT(segment.end, instant) << name << " " << instant;
      if (segment.end > kLast9999) break;  // the last segment: no transitions after 2037
      const ZoneSegment next = tz.segment_at(segment.end);
      ASSERT_EQ(next.begin, segment.end) << name << " " << instant;
      instant = segment.end;
    }
  }
}

TEST(TimeZone, SegmentAtContainsInstantsUpToTheLatest) {
  const TimeZone berlin = zone("Europe/Berlin");
  for (TimeMs instant : {kLast9999, kLatestInstant / 2, kLatestInstant - 1}) {
    const ZoneSegment segment = berlin.segment_at(instant);
    EXPECT_LE(segment.begin, instant);
    EXPECT_GT(segment.end, instant) << instant;
  }
}

TEST(TimeZone, FromWallInvertsToWallOutsideTransitions) {
  const TimeZone berlin = zone("Europe/Berlin");
  // 12:00 wall is 11:00Z in winter and 10:00Z in summer.
  EXPECT_EQ(berlin.from_wall(kJan15 * kDay + 12 * kHour), kJan15 * kDay + 11 * kHour);
  EXPECT_EQ(berlin.from_wall(kJul1 * kDay + 12 * kHour), kJul1 * kDay + 10 * kHour);
  EXPECT_EQ(berlin.to_wall(kJul1 * kDay + 10 * kHour), kJul1 * kDay + 12 * kHour);
}

TEST(TimeZone, FromWallInAGapIsTheFirstInstantAfterIt) {
  const TimeZone berlin = zone("Europe/Berlin");
  const LocalMs day = kMar29 * kDay;
  EXPECT_EQ(berlin.from_wall(day + 2 * kHour), kSpringForward);
  EXPECT_EQ(berlin.from_wall(day + 2 * kHour + 30 * kMinute), kSpringForward);
  EXPECT_EQ(berlin.from_wall(day + 3 * kHour - 1), kSpringForward);
  EXPECT_EQ(berlin.from_wall(day + 3 * kHour), kSpringForward);  // the first wall time after
  EXPECT_EQ(berlin.from_wall(day + 2 * kHour - 1), kSpringForward - 1);
}

TEST(TimeZone, FromWallWhenRepeatedIsTheFirstOccurrence) {
  const TimeZone berlin = zone("Europe/Berlin");
  const LocalMs day = kOct25 * kDay;
  // 02:00-03:00 happens at +02:00 (00:00Z-01:00Z), then again at +01:00.
  EXPECT_EQ(berlin.from_wall(day + 2 * kHour), kFallBack - kHour);
  EXPECT_EQ(berlin.from_wall(day + 2 * kHour + 30 * kMinute), kFallBack - 30 * kMinute);
  EXPECT_EQ(berlin.from_wall(day + 3 * kHour), kFallBack + kHour);
}

TEST(TimeZone, LocalHonoursTheTzVariable) {
  {
    ScopedTz tz("America/New_York");
    EXPECT_EQ(TimeZone::local().name(), "America/New_York");
  }
  {
    ScopedTz tz(":Europe/Berlin");
    EXPECT_EQ(TimeZone::local().name(), "Europe/Berlin");
  }
  {
    ScopedTz tz("UTC");
    EXPECT_TRUE(TimeZone::local().is_utc());
  }
}

}  // namespace
}  // namespace orrery
