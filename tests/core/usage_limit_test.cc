#include "core/usage_limit.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace orrery
