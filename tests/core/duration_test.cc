#include "core/duration.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace orrery {
namespace {

constexpr DurationMs kSecond = 1000;
constexpr DurationMs kMinute = 60 * kSecond;
constexpr DurationMs kHour = 60 * kMinute;
constexpr DurationMs kDay = 24 * kHour;

DurationMs parse_ok(std::string_view text, ZeroDuration zero = ZeroDuration::kRejected) {
  auto result = parse_duration(text, zero);
  EXPECT_TRUE(result.ok()) << text << ": " << (result.ok() ? "" : result.error().message);
  return result.ok() ? *result : -1;
}

// The error message for a rejected input; it must quote the input.
std::string parse_error(std::string_view text, ZeroDuration zero = ZeroDuration::kRejected) {
  auto result = parse_duration(text, zero);
  if (result.ok()) {
    ADD_FAILURE() << "'" << text << "' was accepted as " << *result << "ms";
    return "";
  }
  EXPECT_EQ(result.error().code, ErrorCode::kUsage);
  EXPECT_NE(result.error().message.find(std::string(1, '\'').append(text).append(1, '\'')),
            std::string::npos)
      << result.error().message;
  return result.error().message;
}

TEST(DurationParse, AcceptsEachUnit) {
  EXPECT_EQ(parse_ok("500ms"), 500);
  EXPECT_EQ(parse_ok("30s"), 30 * kSecond);
  EXPECT_EQ(parse_ok("15m"), 15 * kMinute);
  EXPECT_EQ(parse_ok("2h"), 2 * kHour);
  EXPECT_EQ(parse_ok("1d"), kDay);
}

TEST(DurationParse, AddsUnitsInDescendingOrder) {
  EXPECT_EQ(parse_ok("1h30m"), kHour + 30 * kMinute);
  EXPECT_EQ(parse_ok("2d4h"), 2 * kDay + 4 * kHour);
  EXPECT_EQ(parse_ok("1d2h3m4s5ms"), kDay + 2 * kHour + 3 * kMinute + 4 * kSecond + 5);
}

TEST(DurationParse, AcceptsADecimalInASingleUnit) {
  EXPECT_EQ(parse_ok("1.5h"), 90 * kMinute);
  EXPECT_EQ(parse_ok("0.25s"), 250);
  EXPECT_EQ(parse_ok("1.001s"), 1001);
}

TEST(DurationParse, TreatsABareNumberAsMilliseconds) {
  EXPECT_EQ(parse_ok("1500"), 1500);
  EXPECT_EQ(parse_ok("1"), 1);
}

TEST(DurationParse, TrimsSurroundingWhitespace) {
  EXPECT_EQ(parse_ok("  15m "), 15 * kMinute);
  EXPECT_EQ(parse_ok("\t2h\t"), 2 * kHour);
}

TEST(DurationParse, RejectsEmptyAndBlankInput) {
  EXPECT_NE(parse_error("").find("expected a number with a unit"), std::string::npos);
  EXPECT_NE(parse_error("   ").find("expected a number with a unit"), std::string::npos);
}

TEST(DurationParse, RejectsNegative) {
  EXPECT_NE(parse_error("-5m").find("cannot be negative"), std::string::npos);
}

TEST(DurationParse, RejectsZeroUnlessAllowed) {
  EXPECT_NE(parse_error("0s").find("greater than zero"), std::string::npos);
  EXPECT_NE(parse_error("0").find("greater than zero"), std::string::npos);
  EXPECT_EQ(parse_ok("0s", ZeroDuration::kAllowed), 0);
  EXPECT_EQ(parse_ok("0", ZeroDuration::kAllowed), 0);
}

TEST(DurationParse, RejectsANumberTooLargeForInt64) {
  EXPECT_NE(parse_error("99999999999999999999d").find("too large"), std::string::npos);
  EXPECT_NE(parse_error("9223372036854775808").find("too large"), std::string::npos);
}

TEST(DurationParse, RejectsAProductOrSumTooLargeForInt64) {
  EXPECT_NE(parse_error("9223372036854775807d").find("too large"), std::string::npos);
  // 106751991167 days fit; adding 23 hours passes INT64_MAX milliseconds.
  EXPECT_NE(parse_error("106751991167d23h").find("too large"), std::string::npos);
}

TEST(DurationParse, AcceptsTheLargestValue) {
  EXPECT_EQ(parse_ok("9223372036854775807"), std::numeric_limits<DurationMs>::max());
}

TEST(DurationParse, RejectsUnknownUnitsAndGarbage) {
  EXPECT_NE(parse_error("5x").find("unknown unit 'x'"), std::string::npos);
  EXPECT_NE(parse_error("abc").find("expected a number with a unit"), std::string::npos);
  EXPECT_NE(parse_error("1h 30m").find("expected a number with a unit"), std::string::npos);
}

TEST(DurationParse, RejectsUnitsOutOfOrderOrRepeated) {
  EXPECT_NE(parse_error("30m1h").find("largest to smallest"), std::string::npos);
  EXPECT_NE(parse_error("1h1h").find("largest to smallest"), std::string::npos);
  EXPECT_NE(parse_error("1s1m").find("largest to smallest"), std::string::npos);
}

TEST(DurationParse, RejectsATrailingNumberWithoutUnit) {
  EXPECT_NE(parse_error("1h30").find("the last number has no unit"), std::string::npos);
}

TEST(DurationParse, RejectsADecimalInAMultiUnitDuration) {
  EXPECT_NE(parse_error("1.5h30m").find("single-unit"), std::string::npos);
  EXPECT_NE(parse_error("1h30.5m").find("single-unit"), std::string::npos);
}

TEST(DurationParse, RejectsPrecisionFinerThanAMillisecond) {
  EXPECT_NE(parse_error("0.5ms").find("finer than one millisecond"), std::string::npos);
  EXPECT_NE(parse_error("1.5").find("finer than one millisecond"), std::string::npos);
}

TEST(DurationParse, AcceptsMoreDecimalsWhenTheValueIsWholeMilliseconds) {
  // 0.0001 minutes is 6ms and 0.0001 days 8640ms: neither is finer than 1ms.
  EXPECT_EQ(parse_ok("1.0001m"), kMinute + 6);
  EXPECT_EQ(parse_ok("0.0001d"), 8640);
  parse_error("1.0001s");  // 1000.1ms
}

TEST(DurationParse, RejectsMalformedDecimals) {
  parse_error(".5h");
  parse_error("5.h");
  parse_error("1.2.3s");
}

TEST(DurationFormat, WritesLargestUnitsFirstDroppingZeroParts) {
  EXPECT_EQ(format_duration(5'400'000), "1h30m");
  EXPECT_EQ(format_duration(500), "500ms");
  EXPECT_EQ(format_duration(0), "0s");
  EXPECT_EQ(format_duration(86'400'000), "1d");
  EXPECT_EQ(format_duration(kDay + 5), "1d5ms");
  EXPECT_EQ(format_duration(2 * kDay + 4 * kHour + 3 * kSecond), "2d4h3s");
}

TEST(DurationFormat, RoundTripsThroughParse) {
  // A spread of values: small, unit boundaries, mixed units and the extremes.
  std::uint64_t state = 12345;
  auto next_random = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 1;
  };
  std::vector<DurationMs> values = {0,          1,
                                    999,        1000,
                                    59'999,     60'000,
                                    kHour - 1,  kHour,
                                    kDay - 1,   kDay,
                                    kDay + 1,   5'400'000,
                                    90'061'001, std::numeric_limits<DurationMs>::max()};
  for (int i = 0; i < 2000; ++i) {
    const int bits = 1 + i % 62;  // magnitudes from 2^1 to 2^62
    values.push_back(DurationMs(next_random() & ((std::uint64_t{1} << bits) - 1)));
  }
  for (DurationMs value : values) {
    const std::string text = format_duration(value);
    auto parsed = parse_duration(text, ZeroDuration::kAllowed);
    ASSERT_TRUE(parsed.ok()) << value << " -> " << text << ": " << parsed.error().message;
    EXPECT_EQ(*parsed, value) << text;
  }
}

TEST(DurationRelative, SaysNowWithinASecond) {
  constexpr TimeMs now = 1'772'355'600'000;
  EXPECT_EQ(format_relative(now, now), "now");
  EXPECT_EQ(format_relative(now + 999, now), "now");
  EXPECT_EQ(format_relative(now - 999, now), "now");
}

TEST(DurationRelative, SaysInForTheFutureAndAgoForThePast) {
  constexpr TimeMs now = 1'772'355'600'000;
  EXPECT_EQ(format_relative(now + 4 * kMinute, now), "in 4m");
  EXPECT_EQ(format_relative(now - 3 * kHour, now), "3h ago");
  EXPECT_EQ(format_relative(now + kSecond, now), "in 1s");
  EXPECT_EQ(format_relative(now - 3 * kHour - 12 * kMinute, now), "3h12m ago");
}

TEST(DurationRelative, KeepsOnlyTheTwoLargestUnits) {
  constexpr TimeMs now = 1'772'355'600'000;
  EXPECT_EQ(format_relative(now + kDay + 16 * kHour + 5 * kMinute + 7 * kSecond, now), "in 1d16h");
  EXPECT_EQ(format_relative(now - (3 * kHour + 12 * kMinute + 30 * kSecond + 250), now),
            "3h12m ago");
  EXPECT_EQ(format_relative(now + 4 * kMinute + 30 * kSecond + 400, now), "in 4m30s");
  // A gap in the second unit stays a single unit.
  EXPECT_EQ(format_relative(now + 2 * kDay + 30 * kMinute, now), "in 2d");
}

}  // namespace
}  // namespace orrery
