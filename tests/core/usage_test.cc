#include "core/usage.h"

#include <gtest/gtest.h>

namespace orrery {
namespace {

TEST(Usage, ClaudeResultWithCacheTokensAndCost) {
  const Usage usage = parse_usage(
      AgentProvider::kClaude,
      R"({"type":"result","subtype":"success","result":"ok","total_cost_usd":0.0123,)"
      R"("usage":{"input_tokens":100,"cache_creation_input_tokens":5,"cache_read_input_tokens":20,)"
      R"("output_tokens":42}})");
  EXPECT_EQ(usage.input_tokens, 125);
  EXPECT_EQ(usage.output_tokens, 42);
  EXPECT_DOUBLE_EQ(*usage.cost_usd, 0.0123);
}

TEST(Usage, CodexTurnsAreSummed) {
  const Usage usage = parse_usage(AgentProvider::kCodex,
                                  "{\"type\":\"thread.started\"}\n"
                                  "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":10,"
                                  "\"cached_input_tokens\":3,\"output_tokens\":4}}\n"
                                  "not json\n"
                                  "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":20,"
                                  "\"output_tokens\":6}}\n");
  EXPECT_EQ(usage.input_tokens, 30);
  EXPECT_EQ(usage.output_tokens, 10);
  EXPECT_FALSE(usage.cost_usd.has_value());
}

TEST(Usage, GeminiStatsAcrossModels) {
  const Usage usage = parse_usage(
      AgentProvider::kGemini,
      R"({"response":"hi","stats":{"models":{"gemini-2.5-pro":{"tokens":{"prompt":50,"candidates":9}},)"
      R"("gemini-2.5-flash":{"tokens":{"prompt":5,"candidates":1}}}}})");
  EXPECT_EQ(usage.input_tokens, 55);
  EXPECT_EQ(usage.output_tokens, 10);
}

TEST(Usage, OutputWithoutUsageGivesNothing) {
  for (const char* text : {"", "plain text", "{\"type\":\"result\"}", "[1,2]", "{broken"}) {
    const Usage usage = parse_usage(AgentProvider::kClaude, text);
    EXPECT_FALSE(usage.input_tokens.has_value()) << text;
    EXPECT_FALSE(usage.cost_usd.has_value()) << text;
  }
  EXPECT_FALSE(parse_usage(AgentProvider::kCursor, "{\"usage\":{}}").input_tokens.has_value());
}

TEST(Usage, ATruncatedTailStillYieldsTheFinalLine) {
  const Usage usage = parse_usage(AgentProvider::kCodex,
                                  "[truncated 99 bytes]\n"
                                  "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":1,"
                                  "\"output_tokens\":2}}\n");
  EXPECT_EQ(usage.output_tokens, 2);
}

}  // namespace
}  // namespace orrery
