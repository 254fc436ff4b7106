#include "core/token_amount.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

namespace orrery {
namespace {

TEST(TokenAmount, WholeNumbersAndSuffixes) {
  const std::pair<const char*, std::int64_t> cases[] = {
      {"1", 1},
      {"200000", 200'000},
      {"200k", 200'000},
      {"250K", 250'000},
      {"1.5M", 1'500'000},
      {"1.5m", 1'500'000},
      {"2M", 2'000'000},
      {"1.5k", 1'500},
      {"1.25k", 1'250},
      {"1.125k", 1'125},
      {"0.5k", 500},
      {"1.50k", 1'500},
      {"1.000001M", 1'000'001},
      {" 200k ", 200'000},
      {"\t42\n", 42},
      {"1000000000000", 1'000'000'000'000},
      {"1000000M", 1'000'000'000'000},
      {"1000000000k", 1'000'000'000'000},
      {"007", 7},
  };
  for (const auto& [text, expected] : cases) {
    auto amount = parse_token_amount(text, "--budget");
    ASSERT_TRUE(amount) << text << ": " << amount.error().message;
    EXPECT_EQ(*amount, expected) << text;
  }
}

TEST(TokenAmount, TheMaximumIsATrillion) {
  EXPECT_EQ(*parse_token_amount("1000000000000", "--budget"), kMaxTokenAmount);
  for (const char* text : {"1000000000001", "1000000.000001M", "1000000.1M", "1000001M",
                           "1000000001k", "9223372036854775807", "9223372036854775808",
                           "99999999999999999999999999999999999999999999"}) {
    auto amount = parse_token_amount(text, "--budget");
    ASSERT_FALSE(amount) << text;
    EXPECT_NE(amount.error().message.find("too large"), std::string::npos)
        << amount.error().message;
  }
}

TEST(TokenAmount, RefusedTextNamesTheOptionAndTheValue) {
  for (const char* text :
       {"0",     "0k",   "0.0M", "-1",   "-5k", "+5",     "1.2345k", "1.5",   "1.0000001M", "1e5",
        "1E5",   "",     "   ",  "k",    "M",   ".",      "1,000",   "1_000", "200 k",      "200kk",
        "200kb", "200g", "12a",  "0x10", "abc", "1.5.5k", "١٢٣",     "inf",   "nan"}) {
    auto amount = parse_token_amount(text, "--budget");
    ASSERT_FALSE(amount) << "'" << text << "' was accepted as " << *amount;
    EXPECT_EQ(amount.error().code, ErrorCode::kUsage);
    EXPECT_NE(amount.error().message.find("--budget"), std::string::npos) << amount.error().message;
    EXPECT_NE(amount.error().message.find("200k"), std::string::npos)
        << "says what is accepted: " << amount.error().message;
  }
  EXPECT_NE(parse_token_amount("1e5", "--add").error().message.find("--add '1e5'"),
            std::string::npos);
}

TEST(TokenAmount, ReasonsSayWhatIsWrong) {
  EXPECT_NE(parse_token_amount("", "--budget").error().message.find("empty"), std::string::npos);
  EXPECT_NE(parse_token_amount("0", "--budget").error().message.find("not positive"),
            std::string::npos);
  EXPECT_NE(parse_token_amount("1.2345k", "--budget").error().message.find("whole number"),
            std::string::npos);
  EXPECT_NE(parse_token_amount("1e5", "--budget").error().message.find("not a number"),
            std::string::npos);
}

// A huge digit string is refused as it is read, without overflowing.
TEST(TokenAmount, HugeDigitStringsAreRefused) {
  for (size_t digits : {13, 19, 20, 40, 1000, 100000}) {
    const std::string text(digits, '9');
    for (const std::string& suffixed : {text, text + "k", text + "M", "1." + text + "k"}) {
      EXPECT_FALSE(parse_token_amount(suffixed, "--budget")) << suffixed.size();
    }
  }
}

TEST(TokenAmount, ControlBytesInTheValueAreShownEscaped) {
  auto amount = parse_token_amount("12\x1b[31m", "--budget");
  ASSERT_FALSE(amount);
  EXPECT_EQ(amount.error().message.find('\x1b'), std::string::npos) << amount.error().message;
}

TEST(TokenAmount, FormatsShortWhenExact) {
  const std::pair<std::int64_t, const char*> cases[] = {
      {0, "0"},
      {1, "1"},
      {999, "999"},
      {1000, "1k"},
      {1100, "1.1k"},
      {1234, "1234"},
      {1250, "1250"},
      {200'000, "200k"},
      {999'999, "999999"},
      {1'000'000, "1M"},
      {1'500'000, "1.5M"},
      {1'050'000, "1050k"},
      {1'234'000, "1234k"},
      {1'234'567, "1234567"},
      {kMaxTokenAmount, "1000000M"},
  };
  for (const auto& [tokens, expected] : cases) {
    EXPECT_EQ(format_token_amount(tokens), expected) << tokens;
  }
}

TEST(TokenAmount, FormatRoundTrips) {
  std::vector<std::int64_t> values;
  for (std::int64_t unit : {std::int64_t(1), std::int64_t(1000), std::int64_t(1'000'000)}) {
    for (std::int64_t n = 1; n <= 2100; ++n) values.push_back(n * unit);
    for (std::int64_t n = 1; n <= 2100; ++n) values.push_back(n * unit / 10);
  }
  for (std::int64_t value = 1; value <= kMaxTokenAmount; value *= 10) {
    values.push_back(value);
    values.push_back(value + 1);
    values.push_back(value * 15 / 10);
    values.push_back(value - 1);
  }
  values.push_back(kMaxTokenAmount);
  std::mt19937_64 random(22);
  std::uniform_int_distribution<std::int64_t> any(1, kMaxTokenAmount);
  for (int index = 0; index < 10000; ++index) values.push_back(any(random));
  for (const std::int64_t value : values) {
    if (value <= 0 || value > kMaxTokenAmount) continue;
    const std::string text = format_token_amount(value);
    auto parsed = parse_token_amount(text, "--budget");
    ASSERT_TRUE(parsed) << value << " -> " << text << ": " << parsed.error().message;
    EXPECT_EQ(*parsed, value) << text;
  }
}

}  // namespace
}  // namespace orrery
