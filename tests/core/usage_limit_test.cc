#include "core/usage_limit.h"

#include <gtest/gtest.h>

#include <limits>

namespace orrery {
namespace {

constexpr TimeMs kNow = 1'780'000'000'000;  // 2026-05-28T20:26:40Z

TEST(UsageLimit, ClaudeLimitWithAnEpochResetTime) {
  auto hit = classify_usage_limit(AgentProvider::kClaude,
                                  "Claude AI usage limit reached|1780003600", kNow);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->pattern, "claude-usage-limit");
  EXPECT_EQ(hit->reset_at, TimeMs{1'780'003'600'000});
}

TEST(UsageLimit, CodexLimitWithResetSeconds) {
  auto hit = classify_usage_limit(
      AgentProvider::kCodex,
      R"({"type":"error","message":"usage_limit_reached","resets_in_seconds": 90})", kNow);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->pattern, "codex-usage-limit");
  EXPECT_EQ(hit->reset_at, kNow + 90'000);
}

TEST(UsageLimit, TryAgainInMinutesAndRetryAfter) {
  auto minutes = classify_usage_limit(
      AgentProvider::kCodex, "Rate limit reached for gpt-5. Please try again in 3 minutes.", kNow);
  ASSERT_TRUE(minutes.has_value());
  EXPECT_EQ(minutes->reset_at, kNow + 180'000);
  auto after = classify_usage_limit(AgentProvider::kOpencode,
                                    "HTTP 429 Too Many Requests\nRetry-After: 30", kNow);
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->pattern, "generic-rate-limit");
  EXPECT_EQ(after->reset_at, kNow + 30'000);
}

TEST(UsageLimit, LimitsWithoutAResetTime) {
  for (const auto& [provider, text] : std::vector<std::pair<AgentProvider, const char*>>{
           {AgentProvider::kClaude, "You've hit your limit · resets soon"},
           {AgentProvider::kClaude, "5-hour limit reached"},
           {AgentProvider::kCursor, "You've hit your usage limit for this month"},
           {AgentProvider::kGemini, "Error: RESOURCE_EXHAUSTED: Quota exceeded for quota metric"},
           {AgentProvider::kAicopilot, "usage limit exceeded"}}) {
    auto hit = classify_usage_limit(provider, text, kNow);
    ASSERT_TRUE(hit.has_value()) << text;
    EXPECT_FALSE(hit->reset_at.has_value()) << text;
  }
}

TEST(UsageLimit, OrdinaryFailuresAreNotLimits) {
  for (const char* text : {"error: tests failed", "rate of change limited to 5%", "exit status 1",
                           "the usage section of the README"}) {
    EXPECT_FALSE(classify_usage_limit(AgentProvider::kClaude, text, kNow).has_value()) << text;
  }
  // A provider-specific message does not count for another provider.
  EXPECT_TRUE(classify_usage_limit(AgentProvider::kClaude, "rate_limit_error", kNow).has_value());
  EXPECT_FALSE(classify_usage_limit(AgentProvider::kGemini, "rate_limit_error", kNow).has_value());
}

TEST(UsageLimit, AResetTimeInThePastIsIgnored) {
  auto hit = classify_usage_limit(AgentProvider::kClaude,
                                  "Claude AI usage limit reached|1700000000", kNow);
  ASSERT_TRUE(hit.has_value());
  EXPECT_FALSE(hit->reset_at.has_value());
}

TEST(UsageLimit, DefaultCooldownGrowsOnRepeatUpToSixHours) {
  EXPECT_EQ(default_cooldown(0), 5 * 60'000);
  EXPECT_EQ(default_cooldown(1), 10 * 60'000);
  EXPECT_EQ(default_cooldown(3), 40 * 60'000);
  EXPECT_EQ(default_cooldown(10), 6 * 3'600'000);
  EXPECT_EQ(cooldown_until({"x", kNow + 42}, 5, kNow), kNow + 42);
  EXPECT_EQ(cooldown_until({"x", std::nullopt}, 0, kNow), kNow + 5 * 60'000);
}

TEST(UsageLimit, AResetTimeIsAtMostSevenDaysAwayHoweverLargeTheNumber) {
  const TimeMs cap = kNow + kMaxCooldownMs;
  for (const char* text : {"Claude AI usage limit reached|99999999999999999999",
                           "Claude AI usage limit reached|9999999999",
                           "Claude AI usage limit reached|"
                           "99999999999999999999999999999999999999",
                           "usage limit reached. Retry-After: 99999999999999",
                           "usage limit reached. Retry-After: 99999999999999999999999999",
                           "usage limit reached: try again in 9999999999999999 hours",
                           "usage limit reached: try again in 2562047788015215 h",
                           "usage limit reached, resets_in_seconds: 9223372036854775807",
                           "usage limit reached, resets_in_seconds: 604801"}) {
    auto hit = classify_usage_limit(AgentProvider::kClaude, text, kNow);
    ASSERT_TRUE(hit.has_value()) << text;
    ASSERT_TRUE(hit->reset_at.has_value()) << text;
    EXPECT_EQ(*hit->reset_at, cap) << text;
    EXPECT_EQ(cooldown_until(*hit, 0, kNow), cap) << text;
  }
  // Just under the cap is kept as given.
  auto week = classify_usage_limit(AgentProvider::kClaude,
                                   "usage limit reached, resets_in_seconds: 604799", kNow);
  EXPECT_EQ(week->reset_at, kNow + 604'799'000);
}

TEST(UsageLimit, CooldownUntilIsCappedEvenForAHandMadeHit) {
  EXPECT_EQ(cooldown_until({"x", std::numeric_limits<TimeMs>::max()}, 0, kNow),
            kNow + kMaxCooldownMs);
  EXPECT_EQ(cooldown_until({"x", std::nullopt}, 1000, kNow), kNow + 6 * 3'600'000);
  EXPECT_EQ(kMaxCooldownMs, 7 * 86'400'000);
}

}  // namespace
}  // namespace orrery
