#include "core/usage.h"

#include <gtest/gtest.h>

#include <cstdint>

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

// The output is untrusted: counts never go negative or overflow, a cost is finite.
TEST(Usage, HostileNumbersSaturateInsteadOfOverflowing) {
  const Usage codex =
      parse_usage(AgentProvider::kCodex,
                  "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":9223372036854775807,"
                  "\"output_tokens\":-5}}\n"
                  "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":9223372036854775807,"
                  "\"output_tokens\":18446744073709551615}}\n");
  EXPECT_EQ(codex.input_tokens, INT64_MAX);
  EXPECT_EQ(codex.output_tokens, INT64_MAX);
  const Usage claude = parse_usage(
      AgentProvider::kClaude,
      R"({"type":"result","usage":{"input_tokens":9223372036854775807,)"
      R"("cache_read_input_tokens":9223372036854775807,"output_tokens":-1},"cost_usd":-3})");
  EXPECT_EQ(claude.input_tokens, INT64_MAX);
  EXPECT_EQ(claude.output_tokens, 0);
  EXPECT_FALSE(claude.cost_usd.has_value());
  const Usage huge_cost =
      parse_usage(AgentProvider::kClaude, R"({"type":"result","usage":{},"total_cost_usd":1e400})");
  EXPECT_FALSE(huge_cost.cost_usd.has_value());
  const Usage gemini = parse_usage(
      AgentProvider::kGemini,
      R"({"stats":{"models":{"a":{"tokens":{"prompt":9223372036854775807,"candidates":1}},)"
      R"("b":{"tokens":{"prompt":9223372036854775807,"candidates":-9}}}}})");
  EXPECT_EQ(gemini.input_tokens, INT64_MAX);
  EXPECT_EQ(gemini.output_tokens, 1);
}

}  // namespace
}  // namespace orrery

namespace orrery {
namespace {

// Found by fuzzing: a "type" that is not a string is just not a result.
TEST(Usage, ADocumentWhoseTypeIsNotAStringIsIgnored) {
  for (const AgentProvider provider : {AgentProvider::kClaude, AgentProvider::kCodex}) {
    const Usage usage = parse_usage(
        provider, R"({"type":{"x":1},"usage":{"input_tokens":2}})"
                  "\n"
                  R"({"type":["turn.completed"],"usage":{"input_tokens":2,"output_tokens":3}})");
    EXPECT_FALSE(usage.input_tokens.has_value());
    EXPECT_FALSE(usage.output_tokens.has_value());
  }
}

}  // namespace
}  // namespace orrery
