#include "store/target_codec.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace orrery {
namespace {

Target agent_target() {
  AgentTarget agent;
  agent.provider = AgentProvider::kCodex;
  agent.prompt = "review";
  agent.model = "gpt";
  agent.variant = "high";
  agent.sandbox = "read-only";
  agent.add_dirs = {"/shared"};
  agent.extra_args = {"--x"};
  agent.cwd = "/repo";
  Target target;
  target.type = TargetType::kAgent;
  target.cwd = "/repo";
  target.env = {{"A", "1"}};
  target.agent = agent;
  return target;
}

TEST(TargetCodec, AnAgentTargetRoundTrips) {
  const Target target = agent_target();
  auto decoded = decode_target(encode_target(target));
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  ASSERT_TRUE(decoded->agent.has_value());
  const AgentTarget& agent = *decoded->agent;
  EXPECT_EQ(decoded->type, TargetType::kAgent);
  EXPECT_EQ(agent.provider, AgentProvider::kCodex);
  EXPECT_EQ(agent.prompt, "review");
  EXPECT_EQ(agent.prompt_file, "");
  EXPECT_EQ(agent.model, "gpt");
  EXPECT_EQ(agent.variant, "high");
  EXPECT_EQ(agent.sandbox, "read-only");
  EXPECT_EQ(agent.config_isolation, "");
  EXPECT_EQ(agent.add_dirs, std::vector<std::string>{"/shared"});
  EXPECT_EQ(agent.extra_args, std::vector<std::string>{"--x"});
  EXPECT_EQ(agent.cwd, "/repo");
  EXPECT_EQ(decoded->env, (std::vector<EnvVar>{{"A", "1"}}));
}

// One shape, stored and shown: the stored agent object is agent_target_json.
TEST(TargetCodec, TheStoredAgentIsTheSharedShape) {
  const Target target = agent_target();
  const nlohmann::json stored = nlohmann::json::parse(encode_target(target));
  EXPECT_EQ(stored.at("agent"), agent_target_json(*target.agent));
  const nlohmann::json shape = agent_target_json(*target.agent);
  EXPECT_EQ(shape.at("effort"), "high");
  EXPECT_TRUE(shape.at("prompt_file").is_null());
  EXPECT_TRUE(shape.at("config_isolation").is_null());
  for (const char* key :
       {"provider", "prompt", "prompt_file", "model", "effort", "agent", "permission_mode",
        "sandbox", "config_isolation", "add_dirs", "extra_args", "cwd", "auth_profile"}) {
    EXPECT_TRUE(shape.contains(key)) << key;
  }
}

// Rows written before the shape was shared hold "variant" and empty strings.
TEST(TargetCodec, AnOlderRowWithVariantStillDecodes) {
  const std::string old_row =
      R"({"type":"agent","argv":[],"shell":false,"command_line":"","cwd":"","env":[],)"
      R"("secret_env":[],"agent":{"provider":"claude","prompt":"p","prompt_file":"","model":"",)"
      R"("variant":"max","agent":"","permission_mode":"","sandbox":"","config_isolation":"",)"
      R"("add_dirs":[],"extra_args":[],"cwd":"","auth_profile":""}})";
  auto decoded = decode_target(old_row);
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  EXPECT_EQ(decoded->agent->variant, "max");
  EXPECT_EQ(decoded->agent->provider, AgentProvider::kClaude);
}

TEST(TargetCodec, UnknownTypesAndProvidersAreRefusedNotGuessed) {
  Target command;
  command.argv = {"/bin/true"};
  nlohmann::json row = nlohmann::json::parse(encode_target(command));
  for (const char* type : {"container", "Command", ""}) {
    row["type"] = type;
    auto decoded = decode_target(row.dump());
    ASSERT_FALSE(decoded.ok()) << type;
    EXPECT_NE(decoded.error().message.find(std::string("unknown target type '") + type + "'"),
              std::string::npos)
        << decoded.error().message;
    EXPECT_NE(decoded.error().message.find("newer version"), std::string::npos);
  }
  nlohmann::json agent = nlohmann::json::parse(encode_target(agent_target()));
  for (const char* provider : {"claude-next", "CLAUDE", ""}) {
    agent["agent"]["provider"] = provider;
    auto decoded = decode_target(agent.dump());
    ASSERT_FALSE(decoded.ok()) << provider;
    EXPECT_NE(decoded.error().message.find(std::string("unknown agent provider '") + provider),
              std::string::npos)
        << decoded.error().message;
  }
}

TEST(TargetCodec, DamagedTextIsDescribedInOrrerysWordsNotTheLibrarys) {
  struct Case {
    const char* text;
    const char* reason;
  };
  const Case cases[] = {
      {"", "it is not valid JSON"},
      {"[1, 2", "it is not valid JSON"},
      {"{\"type\": 7}", "a field has the wrong type"},
      {"{\"type\": \"command\"}", "a field is missing"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    auto target = decode_target(c.text);
    ASSERT_FALSE(target.ok());
    EXPECT_EQ(target.error().message,
              std::string("the stored target is not valid (") + c.reason + ")");
  }
  auto labels = decode_labels("[[1, 2]]");
  ASSERT_FALSE(labels.ok());
  EXPECT_EQ(labels.error().message,
            "the stored machine labels are not valid (a field has the wrong type)");
}

}  // namespace
}  // namespace orrery
