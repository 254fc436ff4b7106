#include "core/ids.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace orrery {
namespace {

constexpr std::array<std::uint8_t, 10> kZeros{};
constexpr std::array<std::uint8_t, 10> kBytes{0x00, 0x01, 0x7f, 0x80, 0xab,
                                              0xcd, 0xef, 0x10, 0xfe, 0xff};
constexpr TimeMs kTime = 1'772'355'600'000;  // 2026-03-01T09:00:00Z

std::string hex12(TimeMs time) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%012llx", static_cast<unsigned long long>(time));
  return buffer;
}

TEST(Ids, AreThirtyTwoLowercaseHexCharacters) {
  const std::string id = make_id(kTime, kBytes);
  EXPECT_EQ(id.size(), 32u);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
  EXPECT_TRUE(is_id(id));
}

TEST(Ids, StartWithTheTimeAsTwelveHexDigits) {
  EXPECT_EQ(make_id(kTime, kBytes).substr(0, 12), hex12(kTime));
  EXPECT_EQ(make_id(0, kZeros), std::string(32, '0'));
  EXPECT_EQ(make_id(1, kZeros).substr(0, 12), "000000000001");
}

TEST(Ids, EndWithTheRandomBytesInHex) {
  EXPECT_EQ(make_id(kTime, kBytes).substr(12), "00017f80abcdef10feff");
}

TEST(Ids, MadeLaterSortAfterEarlierRegardlessOfRandomness) {
  std::array<std::uint8_t, 10> high{};
  high.fill(0xff);
  for (TimeMs earlier : {TimeMs{0}, TimeMs{15}, kTime, kTime + 4095}) {
    EXPECT_LT(make_id(earlier, high), make_id(earlier + 1, kZeros)) << earlier;
  }
  EXPECT_LT(make_id(kTime, high), make_id(kTime + 86'400'000, kZeros));
}

TEST(Ids, TimeRoundTripsThroughIdTime) {
  for (TimeMs time : {TimeMs{0}, TimeMs{1}, TimeMs{255}, kTime, TimeMs{253'402'300'799'999}}) {
    EXPECT_EQ(id_time(make_id(time, kBytes)), time);
  }
}

TEST(Ids, IsIdRejectsWrongLengthAndNonLowercaseHex) {
  const std::string id = make_id(kTime, kBytes);
  EXPECT_FALSE(is_id(""));
  EXPECT_FALSE(is_id(id.substr(0, 31)));
  EXPECT_FALSE(is_id(id + "0"));
  std::string upper = id;
  upper[20] = 'A';
  EXPECT_FALSE(is_id(upper));
  std::string not_hex = id;
  not_hex[5] = 'g';
  EXPECT_FALSE(is_id(not_hex));
  std::string dash = id;
  dash[31] = '-';
  EXPECT_FALSE(is_id(dash));
}

}  // namespace
}  // namespace orrery
