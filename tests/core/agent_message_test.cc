#include "core/agent_message.h"

#include <gtest/gtest.h>

#include <string>

namespace orrery {
namespace {

const AgentProvider kAllProviders[] = {AgentProvider::kClaude,    AgentProvider::kCursor,
                                       AgentProvider::kCodewith,  AgentProvider::kCodex,
                                       AgentProvider::kAicopilot, AgentProvider::kOpencode,
                                       AgentProvider::kGemini};

TEST(AgentMessage, ClaudeResult) {
  EXPECT_EQ(
      final_message(AgentProvider::kClaude,
                    R"({"type":"result","subtype":"success","result":"all done\n```json\n{}\n```",)"
                    R"("usage":{"input_tokens":1,"output_tokens":2}})"),
      "all done\n```json\n{}\n```");
}

TEST(AgentMessage, ClaudeStreamTakesTheLastResult) {
  EXPECT_EQ(final_message(AgentProvider::kClaude,
                          "{\"type\":\"system\",\"subtype\":\"init\"}\n"
                          "{\"type\":\"assistant\",\"message\":{\"content\":[]}}\n"
                          "{\"type\":\"result\",\"result\":\"first\"}\n"
                          "not json\n"
                          "{\"type\":\"result\",\"result\":\"second\"}\n"),
            "second");
}

TEST(AgentMessage, ClaudePrettyPrintedResult) {
  EXPECT_EQ(final_message(AgentProvider::kClaude,
                          "{\n  \"type\": \"result\",\n  \"result\": \"pretty\"\n}\n"),
            "pretty");
}

TEST(AgentMessage, CodexItemCompleted) {
  EXPECT_EQ(
      final_message(
          AgentProvider::kCodex,
          "{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n"
          "{\"type\":\"item.completed\",\"item\":{\"id\":\"i0\",\"type\":\"reasoning\","
          "\"text\":\"thinking\"}}\n"
          "{\"type\":\"item.completed\",\"item\":{\"id\":\"i1\",\"type\":\"agent_message\","
          "\"text\":\"first message\"}}\n"
          "{\"type\":\"item.completed\",\"item\":{\"id\":\"i2\",\"type\":\"command_execution\","
          "\"command\":\"ls\"}}\n"
          "{\"type\":\"item.completed\",\"item\":{\"id\":\"i3\",\"type\":\"agent_message\","
          "\"text\":\"final message\"}}\n"
          "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}\n"),
      "final message");
}

TEST(AgentMessage, CodexOlderMsgForm) {
  EXPECT_EQ(final_message(AgentProvider::kCodex,
                          "{\"id\":\"0\",\"msg\":{\"type\":\"task_started\"}}\n"
                          "{\"id\":\"0\",\"msg\":{\"type\":\"agent_message\",\"message\":\"old "
                          "form\"}}\n"
                          "{\"id\":\"0\",\"msg\":{\"type\":\"token_count\"}}\n"),
            "old form");
}

TEST(AgentMessage, GeminiResponse) {
  EXPECT_EQ(
      final_message(AgentProvider::kGemini, R"({"response":"gemini says","stats":{"models":{}}})"),
      "gemini says");
  EXPECT_EQ(
      final_message(AgentProvider::kGemini, "{\n  \"response\": \"pretty\",\n  \"stats\": {}\n}"),
      "pretty");
}

TEST(AgentMessage, OtherProvidersGiveTheOutputAsIs) {
  const std::string output = "{\"type\":\"result\",\"result\":\"x\",\"response\":\"y\"}\nplain";
  for (AgentProvider provider : {AgentProvider::kCursor, AgentProvider::kCodewith,
                                 AgentProvider::kAicopilot, AgentProvider::kOpencode}) {
    EXPECT_EQ(final_message(provider, output), output) << provider_name(provider);
  }
}

TEST(AgentMessage, WithoutTheExpectedDocumentTheOutputItself) {
  const std::pair<AgentProvider, std::string> cases[] = {
      {AgentProvider::kClaude, "plain text reply"},
      {AgentProvider::kClaude, R"({"type":"assistant","result":"not a result"})"},
      {AgentProvider::kClaude, R"({"type":"result","result":5})"},
      {AgentProvider::kClaude, R"({"type":"result","result":""})"},
      {AgentProvider::kClaude, R"({"type":"result"})"},
      {AgentProvider::kCodex,
       R"({"type":"item.completed","item":{"type":"reasoning","text":"x"}})"},
      {AgentProvider::kCodex, R"({"type":"item.completed","item":"agent_message"})"},
      {AgentProvider::kCodex, R"({"msg":{"type":"agent_message","message":7}})"},
      {AgentProvider::kGemini, R"({"response":null})"},
      {AgentProvider::kGemini, R"({"response":["a"]})"},
      {AgentProvider::kGemini, R"(["response","x"])"},
  };
  for (const auto& [provider, output] : cases) {
    EXPECT_EQ(final_message(provider, output), output) << output;
  }
}

TEST(AgentMessage, MalformedOutputDoesNotThrow) {
  const std::string hostile[] = {
      "",
      "\n\n\n",
      "{broken",
      "{\"type\":\"result\",\"result\":\"unterminated",
      "{\"type\":\"result\",\"result\":\"\xff\xfe\"}",
      "{\"type\":\"result\",\"result\":\"\\ud800\"}",
      std::string("nul\0byte", 8),
      std::string(100000, '['),
      std::string(100000, '{'),
      "{\"a\":" + std::string(50000, '[') + std::string(50000, ']') + "}",
      std::string(3000, '\n') + "{\"type\":\"result\",\"result\":\"late\"}",
  };
  for (const std::string& output : hostile) {
    for (AgentProvider provider : kAllProviders) {
      std::string message;
      EXPECT_NO_THROW(message = final_message(provider, output)) << output.substr(0, 40);
    }
  }
  EXPECT_EQ(final_message(AgentProvider::kClaude, hostile[10]), "late");
}

}  // namespace
}  // namespace orrery
