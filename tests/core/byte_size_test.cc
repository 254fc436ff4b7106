#include "core/byte_size.h"

#include <gtest/gtest.h>

#include "core/limits.h"

namespace orrery {
namespace {

TEST(ByteSize, ParsesBytesAndDecimalAndBinaryUnits) {
  const std::pair<const char*, std::int64_t> cases[] = {
      {"65536", 65536},
      {"1B", 1},
      {"512KiB", 512 << 10},
      {"64MiB", 64LL << 20},
      {"1GiB", 1LL << 30},
      {"2TiB", 2LL << 40},
      {"1kB", 1000},
      {"1KB", 1000},
      {"1MB", 1'000'000},
      {"3GB", 3'000'000'000},
      {"64mib", 64LL << 20},
      {" 64 MiB ", 64LL << 20},
      {"9223372036854775807", 9223372036854775807LL}};
  for (const auto& [text, bytes] : cases) {
    auto parsed = parse_byte_size(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.error().message;
    EXPECT_EQ(*parsed, bytes) << text;
  }
}

TEST(ByteSize, RefusesWhatIsNotASize) {
  for (const char* text : {"", "MiB", "-1", "1.5MiB", "0", "0KiB", "12 apples", "1Mb2",
                           "9223372036854775808", "8589934592GiB", "1e9"}) {
    auto parsed = parse_byte_size(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.error().message.rfind("invalid size '", 0), 0u) << text;
  }
}

TEST(ByteSize, OptionRangeIsEnforcedNamingTheOptionAndRange) {
  EXPECT_EQ(*parse_byte_size_option("64KiB", "--log-limit", kMinLogLimitBytes, kMaxLogLimitBytes),
            64 << 10);
  EXPECT_EQ(*parse_byte_size_option("16GiB", "--log-limit", kMinLogLimitBytes, kMaxLogLimitBytes),
            16LL << 30);
  for (const char* text : {"65535", "1KiB", "17GiB", "1TiB", "9223372036854775807"}) {
    auto parsed = parse_byte_size_option(text, "--log-limit", kMinLogLimitBytes, kMaxLogLimitBytes);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.error().message,
              std::string("--log-limit ") + text + " is out of range 64KiB to 16GiB");
  }
  EXPECT_EQ(parse_byte_size_option("lots", "--log-limit", 1, 2)
                .error()
                .message.rfind("--log-limit: invalid size 'lots'", 0),
            0u);
}

TEST(ByteSize, FormatsWithTheLargestExactBinaryUnitAndRoundTrips) {
  EXPECT_EQ(format_byte_size(64LL << 20), "64MiB");
  EXPECT_EQ(format_byte_size(1LL << 30), "1GiB");
  EXPECT_EQ(format_byte_size(1536), "1536B");
  EXPECT_EQ(format_byte_size(3072), "3KiB");
  EXPECT_EQ(format_byte_size(1000), "1000B");
  for (std::int64_t bytes : {1LL, 1000LL, 65536LL, 64LL << 20, 1'000'000LL, 17LL << 30}) {
    EXPECT_EQ(*parse_byte_size(format_byte_size(bytes)), bytes) << bytes;
  }
}

}  // namespace
}  // namespace orrery
