#include "core/goal_update.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/goal_plan.h"
#include "core/text.h"

namespace orrery {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The message of the error parsing `text` gives; fails the test if it parses.
std::string refusal(const std::string& text) {
  auto update = parse_goal_update(text);
  if (update) {
    ADD_FAILURE() << "accepted: " << text.substr(0, 200);
    return "";
  }
  EXPECT_EQ(update.error().code, ErrorCode::kUsage);
  return update.error().message;
}

// A message with the given fenced blocks, each as ```INFO\nBODY\n```.
std::string message_with(const std::vector<std::pair<std::string, std::string>>& blocks) {
  std::string message = "I did the work.\n";
  for (const auto& [info, body] : blocks) {
    message += "Here:\n```" + info + "\n" + body + "\n```\nmore prose\n";
  }
  return message;
}

TEST(GoalUpdate, EveryField) {
  auto update = parse_goal_update(R"({"goal": {
      "status": "active",
      "plan": [{"key": "a", "objective": " first "},
               {"key": "b", "objective": "second", "depends_on": ["a"], "priority": 3,
                "token_budget": "50k"},
               {"key": "c", "objective": "third", "token_budget": 1200},
               {"key": "d", "objective": "fourth", "token_budget": null}],
      "node": "a", "node_status": "complete",
      "evidence": {"tests": 12, "passing": true},
      "summary": "  did a  ", "force": false}})");
  ASSERT_TRUE(update) << update.error().message;
  EXPECT_EQ(update->status, GoalStatus::kActive);
  ASSERT_TRUE(update->plan.has_value());
  ASSERT_EQ(update->plan->size(), 4u);
  const std::vector<PlanNode>& plan = *update->plan;
  EXPECT_EQ(plan[0].objective, "first");
  EXPECT_EQ(plan[1].depends_on, std::vector<std::string>{"a"});
  EXPECT_EQ(plan[1].priority, 3);
  EXPECT_EQ(plan[1].token_budget, 50'000);
  EXPECT_EQ(plan[2].token_budget, 1200);
  EXPECT_FALSE(plan[3].token_budget.has_value());
  for (size_t index = 0; index < plan.size(); ++index) {
    EXPECT_EQ(plan[index].sequence, std::int64_t(index));
    EXPECT_EQ(plan[index].status, NodeStatus::kPending);
  }
  EXPECT_EQ(update->node, "a");
  EXPECT_EQ(update->node_status, NodeStatus::kComplete);
  EXPECT_EQ(nlohmann::json::parse(update->evidence_json),
            nlohmann::json::parse(R"({"tests": 12, "passing": true})"));
  EXPECT_EQ(update->summary, "did a");
  EXPECT_FALSE(update->force);
}

TEST(GoalUpdate, AnEmptyGoalSaysNothing) {
  auto update = parse_goal_update(R"({"goal": {}})");
  ASSERT_TRUE(update) << update.error().message;
  EXPECT_FALSE(update->status.has_value());
  EXPECT_FALSE(update->plan.has_value());
  EXPECT_TRUE(update->node.empty());
  EXPECT_FALSE(update->node_status.has_value());
  EXPECT_TRUE(update->evidence_json.empty());
  EXPECT_TRUE(update->summary.empty());
  EXPECT_FALSE(update->force);
  // Null evidence and node are none.
  auto nulls = parse_goal_update(R"({"goal": {"evidence": null, "node": null}})");
  ASSERT_TRUE(nulls) << nulls.error().message;
  EXPECT_TRUE(nulls->evidence_json.empty());
  EXPECT_TRUE(nulls->node.empty());
}

TEST(GoalUpdate, ForceAndComplete) {
  auto update = parse_goal_update(R"({"goal": {"status": "complete", "force": true}})");
  ASSERT_TRUE(update) << update.error().message;
  EXPECT_EQ(update->status, GoalStatus::kComplete);
  EXPECT_TRUE(update->force);
  EXPECT_TRUE(contains(refusal(R"({"goal": {"force": "yes"}})"), "goal.force"));
  EXPECT_TRUE(contains(refusal(R"({"goal": {"force": 1}})"), "goal.force"));
}

TEST(GoalUpdate, OnlyActiveBlockedOrCompleteAreStatuses) {
  for (const char* status : {"active", "blocked", "complete"}) {
    EXPECT_TRUE(parse_goal_update(std::string(R"({"goal": {"status": ")") + status + "\"}}"))
        << status;
  }
  for (const char* status : {"paused", "usage_limited", "budget_limited", "cancelled", "", "ACTIVE",
                             "Complete", "done", "pending", " active"}) {
    const std::string message = refusal(std::string(R"({"goal": {"status": ")") + status + "\"}}");
    EXPECT_TRUE(contains(message, "goal.status must be active, blocked or complete")) << message;
    EXPECT_TRUE(contains(message, std::string("'") + status + "'")) << message;
  }
  for (const char* value : {"1", "null", "true", "[\"active\"]", "{}"}) {
    EXPECT_TRUE(
        contains(refusal(std::string(R"({"goal": {"status": )") + value + "}}"), "goal.status"))
        << value;
  }
}

TEST(GoalUpdate, NodeStatusNeedsANode) {
  const std::string message = refusal(R"({"goal": {"node_status": "complete"}})");
  EXPECT_TRUE(contains(message, "goal.node_status needs goal.node")) << message;
  EXPECT_FALSE(parse_goal_update(R"({"goal": {"node": null, "node_status": "complete"}})"));
  EXPECT_TRUE(
      contains(refusal(R"({"goal": {"node": "a", "node_status": "done"}})"), "goal.node_status"));
  EXPECT_TRUE(contains(refusal(R"({"goal": {"node": 3}})"), "goal.node must be a string"));
  for (const char* status : {"pending", "active", "blocked", "complete", "cancelled"}) {
    auto update = parse_goal_update(std::string(R"({"goal": {"node": "a", "node_status": ")") +
                                    status + "\"}}");
    ASSERT_TRUE(update) << status;
    EXPECT_STREQ(node_status_name(*update->node_status), status);
  }
}

TEST(GoalUpdate, UnknownFieldsAreRefusedNamingThem) {
  EXPECT_TRUE(contains(refusal(R"({"goal": {"statuz": "active"}})"), "'statuz'"));
  EXPECT_TRUE(contains(refusal(R"({"goal": {"status": "active", "extra": 1}})"), "'extra'"));
  // Nodes give no status: a proposal says what to do, not how far it got.
  const std::string status =
      refusal(R"({"goal": {"plan": [{"key": "a", "objective": "x", "status": "complete"}]}})");
  EXPECT_TRUE(contains(status, "goal.plan[0]")) << status;
  EXPECT_TRUE(contains(status, "'status'")) << status;
  EXPECT_TRUE(contains(refusal(R"({"goal": {"plan": [{"key": "a", "objective": "x",
                                                       "tokens_used": 5}]}})"),
                       "'tokens_used'"));
  // Beside "goal" too.
  EXPECT_TRUE(contains(refusal(R"({"goal": {}, "goals": {}})"), "'goals'"));
  // A hostile field name is shown escaped.
  const std::string hostile = refusal("{\"goal\": {\"x\\u001b[2J\": 1}}");
  EXPECT_FALSE(contains(hostile, "\x1b")) << hostile;
}

TEST(GoalUpdate, TheShapeIsAnObjectWithAGoalObject) {
  for (const char* text : {"", "   ", "[]", "42", "\"goal\"", "null", "{}", R"({"Goal": {}})"}) {
    EXPECT_FALSE(parse_goal_update(text)) << text;
  }
  for (const char* text :
       {R"({"goal": null})", R"({"goal": []})", R"({"goal": "done"})", R"({"goal": 1})"}) {
    EXPECT_TRUE(contains(refusal(text), "must be an object")) << text;
  }
}

TEST(GoalUpdate, MalformedJsonIsRefused) {
  for (const char* text :
       {"{", R"({"goal": {"status": "active"})", R"({"goal": {"status": "active",}})",
        R"({"goal": {'status': 'active'}})", R"({"goal": {"status": active}})",
        R"({"goal": {}} trailing)", R"({"goal": {}} {"goal": {}})",
        "{\"goal\": {\"summary\": \"\\ud800\"}}"}) {
    EXPECT_TRUE(contains(refusal(text), "not valid JSON")) << text;
  }
}

TEST(GoalUpdate, DuplicateKeysAreRefused) {
  EXPECT_TRUE(contains(refusal(R"({"goal": {"summary": "a", "summary": "b"}})"), "twice"));
  EXPECT_TRUE(contains(refusal(R"({"goal": {}, "goal": {"status": "complete"}})"), "twice"));
}

TEST(GoalUpdate, HugeInputIsRefusedBeforeParsing) {
  const std::string padding(kMaxGoalUpdateBytes, ' ');
  const std::string message = refusal(R"({"goal": {"summary": "x"}})" + padding);
  EXPECT_TRUE(contains(message, "bytes; at most 262144")) << message;
  // Just under the limit is read.
  const std::string body = R"({"goal": {"summary": "x"}})";
  EXPECT_TRUE(parse_goal_update(body + std::string(kMaxGoalUpdateBytes - body.size(), ' ')));
}

TEST(GoalUpdate, DeepNestingIsRefusedWithoutCrashing) {
  for (const std::string& text :
       {std::string(100000, '['), std::string(100000, '{'),
        R"({"goal": {"evidence": )" + std::string(100000, '['),
        R"({"goal": {"evidence": )" + std::string(70, '[') + std::string(70, ']') + "}}"}) {
    EXPECT_FALSE(parse_goal_update(text)) << text.size();
  }
  // Evidence nested within the limit is kept as it was.
  const std::string nested = std::string(60, '[') + std::string(60, ']');
  auto update = parse_goal_update(R"({"goal": {"evidence": )" + nested + "}}");
  ASSERT_TRUE(update) << update.error().message;
  EXPECT_EQ(update->evidence_json, nested);
}

TEST(GoalUpdate, NonUtf8IsRefused) {
  for (const std::string bad : {"\xff", "\xc0\xaf", "\xed\xa0\x80", "\xe2\x82", "\xf4\x90\x80\x80",
                                "\x80", "\xf8\x88\x80\x80\x80"}) {
    for (const std::string& text :
         {"{\"goal\": {\"summary\": \"" + bad + "\"}}", "{\"goal\": {\"node\": \"" + bad + "\"}}",
          "{\"goal\": {}}" + bad, bad}) {
      const std::string message = refusal(text);
      EXPECT_TRUE(contains(message, "UTF-8")) << message;
      EXPECT_TRUE(is_valid_utf8(message)) << "the error itself is valid UTF-8";
    }
  }
}

// Code points of each UTF-8 length, raw and as JSON escapes, in summaries,
// keys and objectives.
TEST(GoalUpdate, CodePointsOfEveryLengthAreAccepted) {
  const std::pair<const char*, const char*> code_points[] = {
      {"A", "\\u0041"},
      {"~", "\\u007e"},
      {"\xc2\xa9", "\\u00a9"},
      {"\xc3\xa9", "\\u00e9"},
      {"\xdf\xbf", "\\u07ff"},
      {"\xe0\xa0\x80", "\\u0800"},
      {"\xe2\x82\xac", "\\u20ac"},
      {"\xe4\xb8\xad", "\\u4e2d"},
      {"\xed\x9f\xbf", "\\ud7ff"},
      {"\xee\x80\x80", "\\ue000"},
      {"\xef\xbf\xbd", "\\ufffd"},
      {"\xf0\x90\x80\x80", "\\ud800\\udc00"},
      {"\xf0\x9f\x98\x80", "\\ud83d\\ude00"},
      {"\xf0\x9d\x84\x9e", "\\ud834\\udd1e"},
      {"\xf4\x8f\xbf\xbf", "\\udbff\\udfff"},
  };
  for (const auto& [raw, escaped] : code_points) {
    for (const std::string& written : {std::string(raw), std::string(escaped)}) {
      const std::string key = "k" + written;
      auto update = parse_goal_update(R"({"goal": {"summary": "s)" + written +
                                      R"(", "plan": [{"key": ")" + key + R"(", "objective": "o)" +
                                      written + R"("}], "node": ")" + key + "\"}}");
      ASSERT_TRUE(update) << written << ": " << update.error().message;
      EXPECT_EQ(update->summary, std::string("s") + raw);
      EXPECT_EQ((*update->plan)[0].key, std::string("k") + raw);
      EXPECT_EQ((*update->plan)[0].objective, std::string("o") + raw);
      EXPECT_EQ(update->node, std::string("k") + raw);
    }
  }
}

TEST(GoalUpdate, SummariesAreAtMost4000CodePoints) {
  for (const std::string piece : {"a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"}) {
    std::string summary;
    for (size_t index = 0; index < kMaxSummaryCharacters; ++index) summary += piece;
    auto update = parse_goal_update(R"({"goal": {"summary": ")" + summary + "\"}}");
    ASSERT_TRUE(update) << piece.size();
    EXPECT_EQ(update->summary, summary);
    EXPECT_TRUE(
        contains(refusal(R"({"goal": {"summary": ")" + summary + piece + "\"}}"), "goal.summary"));
  }
  EXPECT_TRUE(contains(refusal(R"({"goal": {"summary": 5}})"), "goal.summary must be a string"));
}

TEST(GoalUpdate, PlanNodesAreChecked) {
  const std::pair<const char*, const char*> cases[] = {
      {R"("plan": {"key": "a"})", "goal.plan must be a list"},
      {R"("plan": ["a"])", "goal.plan[0] must be an object"},
      {R"("plan": [{"objective": "x"}])", "goal.plan[0] has no key"},
      {R"("plan": [{"key": "a"}])", "goal.plan[0] (a) has no objective"},
      {R"("plan": [{"key": 1, "objective": "x"}])", "goal.plan[0].key must be a string"},
      {R"("plan": [{"key": "a", "objective": ""}])", "node a: the objective is empty"},
      {R"("plan": [{"key": "", "objective": "x"}])", "node key"},
      {R"("plan": [{"key": "a", "objective": "x", "depends_on": "b"}])",
       "goal.plan[0] (a).depends_on must be a list"},
      {R"("plan": [{"key": "a", "objective": "x", "depends_on": [1]}])",
       "goal.plan[0] (a).depends_on[] must be a string"},
      {R"("plan": [{"key": "a", "objective": "x", "token_budget": 0}, {"key": "b"}])",
       "goal.plan[0] (a).token_budget must be from 1"},
      {R"("plan": [{"key": "a", "objective": "x"}, {"key": "b\u0007", "objective": "y"}])",
       "node key 'b\\x07' contains the control character"},
      {R"("plan": [{"key": "a", "objective": "x", "priority": 1.5}])",
       "goal.plan[0] (a).priority must be a whole number"},
      {R"("plan": [{"key": "a", "objective": "x", "priority": "high"}])",
       "goal.plan[0] (a).priority must be a whole number"},
      {R"("plan": [{"key": "a", "objective": "x", "priority": 9223372036854775808}])",
       "goal.plan[0] (a).priority 9223372036854775808 is out of range: at most "
       "9223372036854775807"},
      {R"("plan": [{"key": "a", "objective": "x", "priority": 123456789012345678901234}])",
       "goal.plan[0] (a).priority 123456789012345678901234 is out of range"},
      {R"("plan": [{"key": "a", "objective": "x", "token_budget": 0}])",
       "goal.plan[0] (a).token_budget must be from 1"},
      {R"("plan": [{"key": "a", "objective": "x", "token_budget": -5}])",
       "goal.plan[0] (a).token_budget must be from 1"},
      {R"("plan": [{"key": "a", "objective": "x", "token_budget": 1000000000001}])",
       "goal.plan[0] (a).token_budget must be from 1"},
      {R"("plan": [{"key": "a", "objective": "x", "token_budget": 2.5}])",
       "goal.plan[0] (a).token_budget must be a whole number"},
      {R"("plan": [{"key": "a", "objective": "x", "token_budget": "1.2345k"}])",
       "invalid goal.plan[0] (a).token_budget '1.2345k'"},
      {R"("plan": [{"key": "a", "objective": "x", "token_budget": "0"}])",
       "invalid goal.plan[0] (a).token_budget '0'"},
  };
  for (const auto& [field, expected] : cases) {
    const std::string message = refusal(std::string(R"({"goal": {)") + field + "}}");
    EXPECT_TRUE(contains(message, expected)) << field << "\n  gave: " << message;
  }
  // Priorities may be negative and as large as int64 holds.
  auto extremes = parse_goal_update(
      R"({"goal": {"plan": [{"key": "a", "objective": "x", "priority": -9223372036854775808},
                            {"key": "b", "objective": "y", "priority": 9223372036854775807}]}})");
  ASSERT_TRUE(extremes) << extremes.error().message;
  EXPECT_EQ((*extremes->plan)[0].priority, INT64_MIN);
  EXPECT_EQ((*extremes->plan)[1].priority, INT64_MAX);
}

// A proposal is checked as a plan once merged into the goal's
// (merge_proposed_plan): its dependencies may name complete nodes it leaves out.
TEST(GoalUpdate, AProposalsDependenciesAreCheckedWhenMerged) {
  for (const char* plan : {R"([{"key": "a", "objective": "x", "depends_on": ["done"]}])",
                           R"([{"key": "a", "objective": "x", "depends_on": ["a"]}])",
                           R"([{"key": "a", "objective": "x"}, {"key": "a", "objective": "y"}])"}) {
    auto update = parse_goal_update(std::string(R"({"goal": {"plan": )") + plan + "}}");
    ASSERT_TRUE(update) << plan << ": " << update.error().message;
    EXPECT_FALSE(validate_plan(*update->plan)) << plan;
  }
}

TEST(GoalUpdate, AnEmptyPlanIsAPlan) {
  auto update = parse_goal_update(R"({"goal": {"plan": []}})");
  ASSERT_TRUE(update) << update.error().message;
  ASSERT_TRUE(update->plan.has_value());
  EXPECT_TRUE(update->plan->empty());
}

TEST(GoalUpdate, AtMost500PlanNodes) {
  std::string nodes;
  for (size_t index = 0; index <= kMaxPlanNodes; ++index) {
    nodes += std::string(index ? "," : "") + R"({"key": "n)" + std::to_string(index) +
             R"(", "objective": "x"})";
  }
  EXPECT_TRUE(contains(refusal(R"({"goal": {"plan": [)" + nodes + "]}}"), "501 nodes"));
}

TEST(GoalUpdateInMessage, TheLastBlockWithAGoalWins) {
  const std::string message = message_with({
      {"json", R"({"goal": {"summary": "first"}})"},
      {"json", R"({"goal": {"summary": "second"}})"},
      {"json", R"({"other": "no goal here"})"},
      {"python", R"({"goal": {"summary": "not json"}})"},
      {"", R"({"goal": {"summary": "no info string"}})"},
  });
  auto block = goal_update_in_message(message);
  ASSERT_TRUE(block.has_value());
  EXPECT_EQ(*block, R"({"goal": {"summary": "second"}})"
                    "\n");
  EXPECT_EQ(parse_goal_update(*block)->summary, "second");
}

TEST(GoalUpdateInMessage, BlocksWithoutAGoalAreIgnored) {
  EXPECT_FALSE(goal_update_in_message(""));
  EXPECT_FALSE(goal_update_in_message("no fences at all {\"goal\": {}}"));
  EXPECT_FALSE(goal_update_in_message(message_with({{"json", R"({"status": "complete"})"},
                                                    {"json", "[1, 2, 3]"},
                                                    {"json", "not json at all"}})));
  // A valid document that names "goal" only inside is not an update either.
  EXPECT_FALSE(goal_update_in_message(message_with({{"json", R"({"note": "\"goal\""})"},
                                                    {"json", R"({"data": {"goal": 1}})"},
                                                    {"json", R"(["goal"])"}})));
}

TEST(GoalUpdateInMessage, AMalformedBlockNamingGoalIsReturnedForItsError) {
  const std::string broken = R"({"goal": {"status": "complete",}})";
  auto block = goal_update_in_message(
      message_with({{"json", R"({"other": 1})"}, {"json", broken}, {"json", "{\"goal\": oops"}}));
  ASSERT_TRUE(block.has_value());
  // The last malformed one.
  EXPECT_EQ(*block, "{\"goal\": oops\n");
  auto update = parse_goal_update(*block);
  ASSERT_FALSE(update);
  EXPECT_TRUE(contains(update.error().message, "not valid JSON")) << update.error().message;
}

// As the header says: a valid block wins over a later malformed one.
TEST(GoalUpdateInMessage, ALaterMalformedBlockIsTheUpdateNotAnEarlierValidOne) {
  auto block = goal_update_in_message(message_with(
      {{"json", R"({"goal": {"summary": "valid"}})"}, {"json", R"({"goal": {broken)"}}));
  ASSERT_TRUE(block.has_value());
  EXPECT_EQ(*block, std::string(R"({"goal": {broken)") + "\n");
  EXPECT_FALSE(parse_goal_update(*block).ok());
}

TEST(GoalUpdateInMessage, FenceVariants) {
  const std::string update = R"({"goal": {"summary": "x"}})";
  for (const std::string& message :
       {"```json\n" + update + "\n```", "```JSON\n" + update + "\n```\n",
        "  ```json  \r\n" + update + "\r\n  ```\r\n", "text\n```json\n" + update + "\n```trailer",
        std::string("```json\n{\n  \"goal\": {\n    \"summary\": \"x\"\n  }\n}\n```")}) {
    auto block = goal_update_in_message(message);
    ASSERT_TRUE(block.has_value()) << message;
    auto parsed = parse_goal_update(*block);
    ASSERT_TRUE(parsed) << message << ": " << parsed.error().message;
    EXPECT_EQ(parsed->summary, "x");
  }
  // Unterminated, or not json.
  for (const std::string& message :
       {"```json\n" + update, "```jsonc\n" + update + "\n```", "```yaml\n" + update + "\n```",
        "``json\n" + update + "\n``", update}) {
    EXPECT_FALSE(goal_update_in_message(message)) << message;
  }
}

TEST(GoalUpdateInMessage, HostileBlocks) {
  // Deep: named "goal", so returned, and refused by the parser.
  const std::string deep = "{\"goal\": " + std::string(100000, '[');
  auto block = goal_update_in_message("```json\n" + deep + "\n```\n");
  ASSERT_TRUE(block.has_value());
  EXPECT_FALSE(parse_goal_update(*block));
  // Huge: the same.
  const std::string huge =
      R"({"goal": {"summary": ")" + std::string(kMaxGoalUpdateBytes, 'x') + "\"}}";
  block = goal_update_in_message("```json\n" + huge + "\n```\n");
  ASSERT_TRUE(block.has_value());
  EXPECT_TRUE(contains(parse_goal_update(*block).error().message, "bytes"));
  // Not UTF-8.
  block = goal_update_in_message("```json\n{\"goal\": {\"summary\": \"\xff\"}}\n```\n");
  ASSERT_TRUE(block.has_value());
  EXPECT_TRUE(contains(parse_goal_update(*block).error().message, "UTF-8"));
  // Many blocks.
  std::string many;
  for (int index = 0; index < 2000; ++index) {
    many += "```json\n{\"goal\": {\"summary\": \"" + std::to_string(index) + "\"}}\n```\n";
  }
  block = goal_update_in_message(many);
  ASSERT_TRUE(block.has_value());
  EXPECT_EQ(parse_goal_update(*block)->summary, "1999");
  // Fences alone.
  EXPECT_FALSE(goal_update_in_message(std::string(1000, '`')));
  EXPECT_FALSE(goal_update_in_message("```json\n```json\n```\n```"));
}

TEST(PlanDocument, AJsonList) {
  auto plan = parse_plan_document(
      R"([{"key": "a", "objective": "first"}, {"key": "b", "objective": "second",
           "depends_on": ["a"], "token_budget": "20k", "priority": 2}])");
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->size(), 2u);
  EXPECT_EQ((*plan)[1].depends_on, std::vector<std::string>{"a"});
  EXPECT_EQ((*plan)[1].token_budget, 20'000);
  EXPECT_EQ((*plan)[1].sequence, 1);
}

TEST(PlanDocument, AnObjectWithAPlan) {
  auto plan = parse_plan_document(R"(  {"plan": [{"key": "a", "objective": "first"}]})");
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->size(), 1u);
}

TEST(PlanDocument, Yaml) {
  auto plan = parse_plan_document(
      "# the plan\n"
      "- key: setup\n"
      "  objective: install the tools\n"
      "- key: build\n"
      "  objective: build it\n"
      "  depends_on: [setup]\n"
      "  token_budget: 50k\n"
      "  priority: -1\n");
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->size(), 2u);
  EXPECT_EQ((*plan)[1].token_budget, 50'000);
  EXPECT_EQ((*plan)[1].priority, -1);
  auto object = parse_plan_document("plan:\n  - key: a\n    objective: x\n");
  ASSERT_TRUE(object) << object.error().message;
  EXPECT_EQ((*object)[0].key, "a");
}

TEST(PlanDocument, InvalidDocumentsAreRefused) {
  const std::pair<const char*, const char*> cases[] = {
      {"- key: a\n  objective: x\n  status: complete\n", "'status'"},
      {"- key: a\n  objective: x\n  token_budget: lots\n", "token_budget"},
      {"[", "the plan file"},
      {"- key: a\n  objective: [unclosed\n", "the plan file"},
      {"- &x {key: a, objective: x}\n- *x\n", "the plan file"},
      {"just text", "plan must be a list"},
      {"{\"nodes\": []}", "the plan file has the unknown field 'nodes'; accepted: plan"},
      {"{\"plan\": [], \"extra\": 1}", "the unknown field 'extra'"},
      {"{}", "the plan file has no plan"},
      {"[\"a\"]", "plan[0] must be an object"},
      {"- key: a\n  key: b\n  objective: x\n", "twice"},
  };
  for (const auto& [text, expected] : cases) {
    auto plan = parse_plan_document(text);
    ASSERT_FALSE(plan) << text;
    EXPECT_TRUE(contains(plan.error().message, expected))
        << text << "\n  gave: " << plan.error().message;
  }
  EXPECT_TRUE(contains(parse_plan_document("- key: \xff\n").error().message, "UTF-8"));
  EXPECT_FALSE(parse_plan_document(std::string(100000, '[')));
  EXPECT_FALSE(parse_plan_document(std::string(100000, '-') + " x"));
}

// One validator for every way a plan reaches a goal (docs/goals.md): a plan
// file (`goal create --plan`, `goal plan --set`), JSON or YAML, and an
// update's plan. Each is a proposal merged into the goal's plan, so every
// case below gets the same verdict, and the same plan, from each of them.
TEST(PlanDocument, EveryEntryPointJudgesAPlanAlike) {
  std::vector<PlanNode> current(2);
  current[0].key = "done";
  current[0].objective = "finished before";
  current[0].status = NodeStatus::kComplete;
  current[1].key = "next";
  current[1].objective = "still to do";
  current[1].sequence = 1;
  // A list of nodes, as JSON; and whether the merged plan is valid.
  const std::pair<const char*, bool> cases[] = {
      {R"([{"key": "a", "objective": "x", "depends_on": ["done"]}])", true},
      {R"([{"key": "a", "objective": "x", "depends_on": ["ghost"]}])", false},
      {R"([{"key": "a", "objective": "x", "depends_on": ["next"]}])", false},  // next is dropped
      {R"([{"key": "next", "objective": "x"}, {"key": "a", "objective": "y",
           "depends_on": ["next", "done"]}])",
       true},
      {R"([{"key": "a", "objective": "x", "depends_on": ["a"]}])", false},
      {R"([{"key": "a", "objective": "x", "depends_on": ["b"]},
           {"key": "b", "objective": "y", "depends_on": ["a"]}])",
       false},
      {R"([{"key": "a", "objective": "x"}, {"key": "a", "objective": "y"}])", false},
      {R"([{"key": "a", "objective": "x", "depends_on": ["done", "done"]}])", false},
      {R"([{"key": "done", "objective": "again"}])", true},  // complete nodes stay as they are
      {R"([{"key": "a", "objective": "x", "extra": 1}])", false},
      {R"([{"key": "a", "objective": "\u0007"}])", false},
      {R"([{"key": "a", "objective": "x", "token_budget": 0}])", false},
      {R"([])", true},
  };
  for (const auto& [list, valid] : cases) {
    const nlohmann::json nodes = nlohmann::json::parse(list);
    const std::string as_file = nodes.dump();
    const std::string as_object = nlohmann::json{{"plan", nodes}}.dump();
    const std::string as_update = nlohmann::json{{"goal", {{"plan", nodes}}}}.dump();
    std::vector<Result<std::vector<PlanNode>>> verdicts;
    for (const std::string& file : {as_file, as_object}) {
      auto proposal = parse_plan_document(file);
      verdicts.push_back(proposal ? merge_proposed_plan(current, *proposal)
                                  : Result<std::vector<PlanNode>>(proposal.error()));
    }
    auto update = parse_goal_update(as_update);
    verdicts.push_back(update && update->plan ? merge_proposed_plan(current, *update->plan)
                       : update ? Result<std::vector<PlanNode>>(internal_error("no plan"))
                                : Result<std::vector<PlanNode>>(update.error()));
    for (size_t entry = 0; entry < verdicts.size(); ++entry) {
      EXPECT_EQ(verdicts[entry].ok(), valid)
          << list << " by entry point " << entry << ": "
          << (verdicts[entry] ? "accepted" : verdicts[entry].error().message);
      if (!valid || !verdicts[entry]) continue;
      ASSERT_EQ(verdicts[entry]->size(), verdicts[0]->size()) << list;
      for (size_t node = 0; node < verdicts[0]->size(); ++node) {
        EXPECT_EQ((*verdicts[entry])[node].key, (*verdicts[0])[node].key) << list;
        EXPECT_EQ((*verdicts[entry])[node].status, (*verdicts[0])[node].status) << list;
      }
    }
  }
}

}  // namespace
}  // namespace orrery
