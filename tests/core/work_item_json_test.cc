#include "core/work_item_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace orrery {
namespace {

TEST(EnqueueObject, EveryFieldIsRead) {
  auto item = parse_enqueue_object(
      R"({"key": "web#12", "priority": -5, "project": "web", "group": "bugs",
          "intent": "fix the crash", "subject": {"kind": "issue", "id": "12", "path": "a.cc",
          "url": "https://x/12"}, "source": {"kind": "github", "id": "d1", "dedupe_key": "k"},
          "input": {"b": 1, "a": [true]}, "scope": {"paths": ["src"]},
          "output_policy": {"pr": false}})");
  ASSERT_TRUE(item) << item.error().message;
  EXPECT_EQ(item->key, "web#12");
  EXPECT_EQ(item->priority, -5);
  EXPECT_EQ(item->project, "web");
  EXPECT_EQ(item->group, "bugs");
  EXPECT_EQ(item->invocation.intent, "fix the crash");
  EXPECT_EQ(item->invocation.subject, (SubjectRef{"issue", "12", "a.cc", "https://x/12"}));
  EXPECT_EQ(item->invocation.source, (SourceRef{"github", "d1", "k"}));
  EXPECT_EQ(item->input_json, R"({"a":[true],"b":1})");
  EXPECT_EQ(item->invocation.scope_json, R"({"paths":["src"]})");
  EXPECT_EQ(item->invocation.output_policy_json, R"({"pr":false})");
}

TEST(EnqueueObject, ShortFormsAndDefaults) {
  auto item = parse_enqueue_object(
      R"({"key": 42, "subject": "issue:42", "source": "gh", "dedupe": "gh-42"})");
  ASSERT_TRUE(item) << item.error().message;
  EXPECT_EQ(item->key, "42");
  EXPECT_EQ(item->priority, 0);
  EXPECT_EQ(item->invocation.subject, (SubjectRef{"issue", "42", "", ""}));
  EXPECT_EQ(item->invocation.source, (SourceRef{"gh", "", "gh-42"}));
  EXPECT_EQ(item->input_json, "{}");
  EXPECT_EQ(item->invocation.scope_json, "{}");
}

TEST(EnqueueObject, NumbersAreKeptAsGivenInEveryObjectField) {
  // Numbers a double would round or reformat, in each free-form object.
  const std::string numbers =
      R"({"big":123456789012345678901234,"price":2.50,"huge":1E5,"small":-1.5e-7,)"
      R"("list":[18446744073709551616,1.10]})";
  auto item =
      parse_enqueue_object(R"({"key": 123456789012345678901234, "input": )" + numbers +
                           R"(, "scope": )" + numbers + R"(, "output_policy": )" + numbers + "}");
  ASSERT_TRUE(item) << item.error().message;
  EXPECT_EQ(item->key, "123456789012345678901234");
  // Stored compact with the keys in order; every number as it was written.
  const std::string stored =
      R"({"big":123456789012345678901234,"huge":1E5,"list":[18446744073709551616,1.10],)"
      R"("price":2.50,"small":-1.5e-7})";
  EXPECT_EQ(item->input_json, stored);
  EXPECT_EQ(item->invocation.scope_json, stored);
  EXPECT_EQ(item->invocation.output_policy_json, stored);
}

TEST(EnqueueObject, ANumberBeyondADoublesRangeIsRefusedNamingIt) {
  for (const std::string number : {"1e400", "-1e400", "1E999"}) {
    auto item = parse_enqueue_object(R"({"key": "k", "input": {"n": )" + number + "}}");
    ASSERT_FALSE(item) << number;
    EXPECT_NE(item.error().message.find("the number " + number + " at line 1"), std::string::npos)
        << item.error().message;
  }
}

TEST(EnqueueObject, APriorityBeyondRangeOrNotWholeSaysWhatWasGiven) {
  for (const std::string number : {"123456789012345678901234", "-99999999999999999999"}) {
    auto item = parse_enqueue_object(R"({"key": "k", "priority": )" + number + "}");
    ASSERT_FALSE(item);
    EXPECT_NE(item.error().message.find(number + " is out of range"), std::string::npos)
        << item.error().message;
  }
  for (const std::string number : {"2.50", "1.5", "1E5"}) {
    auto item = parse_enqueue_object(R"({"key": "k", "priority": )" + number + "}");
    ASSERT_FALSE(item);
    EXPECT_NE(item.error().message.find("must be a whole number, not " + number), std::string::npos)
        << item.error().message;
  }
}

TEST(EnqueueObject, EveryFieldOfTheWrongTypeIsRefusedByName) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> wrong{
      {"key", {"true", "1.5", "2.50", "[]", "{}", "null"}},
      {"priority",
       {"\"1\"", "1.5", "2.50", "true", "[]", "null", "1000001", "-1000001", "18446744073709551615",
        "123456789012345678901234", "-123456789012345678901234"}},
      {"project", {"1", "[]", "null"}},
      {"group", {"1", "{}"}},
      {"intent", {"1", "[]"}},
      {"subject", {"1", "[]", "\":42\"", "{\"kind\": 1}", "{\"nope\": \"x\"}"}},
      {"source", {"1", "[]", "\"\"", "{\"dedupe_key\": []}", "{\"other\": \"x\"}"}},
      {"dedupe", {"1", "[]"}},
      {"input", {"1", "\"{}\"", "[]", "null"}},
      {"scope", {"1", "[]"}},
      {"output_policy", {"true", "[1]"}},
  };
  for (const auto& [field, values] : wrong) {
    for (const std::string& value : values) {
      const std::string text = field == "key"
                                   ? "{\"key\": " + value + "}"
                                   : "{\"key\": \"k\", \"" + field + "\": " + value + "}";
      auto item = parse_enqueue_object(text);
      ASSERT_FALSE(item) << text;
      EXPECT_EQ(item.error().code, ErrorCode::kUsage);
      EXPECT_NE(item.error().message.find(field), std::string::npos)
          << text << " -> " << item.error().message;
    }
  }
}

TEST(EnqueueObject, WhatIsNotOneObjectWithAKeyIsRefused) {
  for (const std::string text :
       {"", "   ", "[]", "42", "\"key\"", "{", "{\"key\": \"a\"} {}", "{}", "{\"priority\": 1}",
        "{\"key\": \"a\", \"key\": \"b\"}", "{\"key\": \"a\xff\"}",
        "{\"key\": \"a\", \"prority\": 1}", "\xff"}) {
    auto item = parse_enqueue_object(text);
    EXPECT_FALSE(item) << text;
  }
  auto unknown = parse_enqueue_object(R"({"key": "a", "prority": 1})");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("prority"), std::string::npos);
  EXPECT_NE(unknown.error().message.find("accepted"), std::string::npos);
}

TEST(EnqueueObject, TheItemRulesApply) {
  EXPECT_FALSE(parse_enqueue_object(R"({"key": ""})"));
  EXPECT_FALSE(parse_enqueue_object("{\"key\": \"" + std::string(201, 'k') + "\"}"));
  EXPECT_TRUE(parse_enqueue_object("{\"key\": \"" + std::string(200, 'k') + "\"}"));
  EXPECT_FALSE(parse_enqueue_object(R"({"key": "a", "dedupe": "d"})"));  // no source kind
  const std::string big =
      "{\"key\": \"a\", \"input\": {\"x\": \"" + std::string(kMaxItemJsonBytes, 'x') + "\"}}";
  EXPECT_FALSE(parse_enqueue_object(big));
}

TEST(KindAndId, SplitsAtTheFirstColon) {
  auto parts = parse_kind_and_id("pr:org/repo:12", "--subject");
  ASSERT_TRUE(parts);
  EXPECT_EQ(parts->kind, "pr");
  EXPECT_EQ(parts->id, "org/repo:12");
  auto alone = parse_kind_and_id("issue", "--subject");
  ASSERT_TRUE(alone);
  EXPECT_EQ(alone->id, "");
  auto empty = parse_kind_and_id(":12", "--subject");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("--subject"), std::string::npos);
}

TEST(JsonObjectText, OnlyOneObjectWithinTheLimitIsAccepted) {
  EXPECT_EQ(*check_json_object(R"( {"b": 2, "a": 1} )", "--input"), R"({"a":1,"b":2})");
  for (const std::string text : {"", "[]", "1", "{", "{\"a\":1,\"a\":2}", "\"x\"", "{}{}"}) {
    auto checked = check_json_object(text, "--input");
    ASSERT_FALSE(checked) << text;
    EXPECT_NE(checked.error().message.find("--input"), std::string::npos);
  }
  EXPECT_FALSE(
      check_json_object("{\"a\":\"" + std::string(kMaxItemJsonBytes, 'a') + "\"}", "scope"));
}

}  // namespace
}  // namespace orrery
