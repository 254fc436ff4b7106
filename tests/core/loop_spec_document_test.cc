#include "core/loop_spec_document.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace orrery {
namespace {

using nlohmann::json;

TEST(LoopSpecDocument, EveryOptionOfAddIsReadFromItsSnakeCaseKey) {
  const json document = json::parse(R"({
    "name": "n", "description": "d", "every": "5m", "fixed_delay": true, "tz": "UTC",
    "jitter": "1s", "catch_up": "all", "catch_up_limit": 7, "catch_up_window": "1h",
    "overlap": "queue", "max_attempts": 3, "retry_delay": "2m", "retry_backoff": "exponential",
    "lease": "10m", "timeout": "1h", "idle_timeout": "5m", "expires": "+1d", "cwd": "/tmp",
    "env": ["A=1"], "secret_env": {"TOKEN": "s"}, "machine": {"gpu": "yes"},
    "command": ["echo", "hi"], "log_limit": "1MiB", "feed": "inbox"})");
  auto spec = loop_spec_from_document(document, SpecUse::kCreate);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->name, "n");
  EXPECT_EQ(spec->every, "5m");
  EXPECT_TRUE(spec->fixed_delay);
  EXPECT_EQ(spec->catch_up_limit, 7);
  EXPECT_EQ(spec->max_attempts, 3);
  EXPECT_EQ(spec->env, std::vector<std::string>{"A=1"});
  EXPECT_EQ(spec->secret_env, std::vector<std::string>{"TOKEN=s"});
  EXPECT_EQ(spec->machine, std::vector<std::string>{"gpu=yes"});
  EXPECT_EQ(spec->command, (std::vector<std::string>{"echo", "hi"}));
  EXPECT_EQ(spec->feed, "inbox");
  EXPECT_EQ(spec->log_limit, "1MiB");
}

TEST(LoopSpecDocument, AWorkflowInputObjectIsKeptAsItsText) {
  auto spec = loop_spec_from_document(json::parse(R"({"workflow": "w", "input": {"a": 1}})"),
                                      SpecUse::kCreate);
  ASSERT_TRUE(spec);
  EXPECT_EQ(json::parse(spec->input), json::parse(R"({"a": 1})"));
}

TEST(LoopSpecDocument, WrongTypesAndUnknownKeysAreRefusedNamingTheKey) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"name": 1})", "name"},
      {R"({"every": true})", "every"},
      {R"({"fixed_delay": "yes"})", "fixed_delay"},
      {R"({"max_attempts": 1.5})", "max_attempts"},
      {R"({"max_attempts": 99999999999})", "max_attempts"},
      {R"({"command": "echo hi"})", "command"},
      {R"({"command": [1]})", "command"},
      {R"({"env": {"A": 1}})", "env.A"},
      {R"({"evry": "1m"})", "evry"},
      {R"({"no_feed": true})", "no_feed"},
  };
  for (const auto& [text, named] : cases) {
    auto spec = loop_spec_from_document(json::parse(text), SpecUse::kCreate);
    ASSERT_FALSE(spec) << text;
    EXPECT_NE(spec.error().message.find(named), std::string::npos)
        << text << ": " << spec.error().message;
  }
  for (const char* text : {"[]", "1", "\"x\"", "null"}) {
    EXPECT_FALSE(loop_spec_from_document(json::parse(text), SpecUse::kCreate)) << text;
  }
}

TEST(LoopSpecDocument, AnEditMayStopAFeedButNotRename) {
  auto edit = loop_spec_from_document(json::parse(R"({"no_feed": true})"), SpecUse::kEdit);
  ASSERT_TRUE(edit);
  EXPECT_TRUE(edit->no_feed);
  auto rename = loop_spec_from_document(json::parse(R"({"name": "x"})"), SpecUse::kEdit);
  ASSERT_FALSE(rename);
  EXPECT_NE(rename.error().message.find("rename"), std::string::npos);
}

TEST(LoopSpecDocument, NullIsNotGiven) {
  auto spec =
      loop_spec_from_document(json::parse(R"({"every": null, "env": null})"), SpecUse::kCreate);
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->every, "");
  EXPECT_TRUE(spec->env.empty());
}

}  // namespace
}  // namespace orrery
