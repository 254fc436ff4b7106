#include "views/goal_view.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "core/exact_json.h"
#include "core/time.h"

namespace orrery {
namespace {

using nlohmann::json;

PlanNode node(const std::string& key, std::vector<std::string> depends_on, NodeStatus status,
              std::int64_t sequence) {
  PlanNode node;
  node.key = key;
  node.objective = "do " + key;
  node.depends_on = std::move(depends_on);
  node.status = status;
  node.sequence = sequence;
  return node;
}

Goal sample_goal() {
  Goal goal;
  goal.id = "g-1";
  goal.objective = "make the suite pass";
  goal.status = GoalStatus::kActive;
  goal.status_reason = "";
  goal.target.type = GoalTargetType::kLoop;
  goal.target.loop_id = "L1";
  goal.drive = DriveMode::kAgent;
  goal.token_budget = 200'000;
  goal.tokens_used = 50'000;
  goal.max_turns = 10;
  goal.turns = 3;
  goal.stall_turns = 4;
  goal.turns_without_progress = 1;
  goal.last_summary = "did a";
  goal.created_at = 1'700'000'000'000;
  goal.updated_at = 1'700'000'060'000;
  goal.plan = {node("a", {}, NodeStatus::kComplete, 0), node("b", {"a"}, NodeStatus::kPending, 1),
               node("c", {"a", "b"}, NodeStatus::kPending, 2)};
  goal.plan[1].token_budget = 5'000;
  goal.plan[1].tokens_used = 1'200;
  goal.plan[1].priority = 2;
  return goal;
}

TEST(GoalJson, FieldsAndTypes) {
  const json document = goal_json(sample_goal());
  ASSERT_TRUE(document.is_object());
  const std::set<std::string> expected = {"id",
                                          "objective",
                                          "status",
                                          "status_reason",
                                          "target",
                                          "drive",
                                          "token_budget",
                                          "tokens_used",
                                          "tokens_left",
                                          "max_turns",
                                          "turns",
                                          "stall_turns",
                                          "turns_without_progress",
                                          "limited_until",
                                          "plan",
                                          "ready",
                                          "rollup",
                                          "last_summary",
                                          "last_update_error",
                                          "created_at",
                                          "updated_at"};
  std::set<std::string> fields;
  for (const auto& [key, value] : document.items()) fields.insert(key);
  EXPECT_EQ(fields, expected);
  EXPECT_EQ(document["id"], "g-1");
  EXPECT_EQ(document["objective"], "make the suite pass");
  EXPECT_EQ(document["status"], "active");
  EXPECT_TRUE(document["status_reason"].is_string());
  EXPECT_EQ(document["drive"], "agent");
  EXPECT_TRUE(document["token_budget"].is_number_integer());
  EXPECT_EQ(document["token_budget"], 200'000);
  EXPECT_EQ(document["tokens_used"], 50'000);
  EXPECT_EQ(document["tokens_left"], 150'000);
  EXPECT_EQ(document["max_turns"], 10);
  EXPECT_EQ(document["turns"], 3);
  EXPECT_EQ(document["stall_turns"], 4);
  EXPECT_EQ(document["turns_without_progress"], 1);
  EXPECT_TRUE(document["limited_until"].is_null());
  EXPECT_EQ(document["last_summary"], "did a");
  EXPECT_TRUE(document["last_update_error"].is_null());
  EXPECT_EQ(document["created_at"], format_time(1'700'000'000'000));
  EXPECT_EQ(document["updated_at"], format_time(1'700'000'060'000));
}

TEST(GoalJson, Target) {
  Goal goal = sample_goal();
  json target = goal_json(goal)["target"];
  EXPECT_EQ(target["type"], "loop");
  EXPECT_EQ(target["loop_id"], "L1");
  EXPECT_TRUE(target["workflow_id"].is_null());
  EXPECT_TRUE(target["workflow_name"].is_null());
  EXPECT_TRUE(target["step_id"].is_null());
  goal.target = GoalTarget{GoalTargetType::kStep, "", "W1", "deploy", "build"};
  target = goal_json(goal)["target"];
  EXPECT_EQ(target["type"], "step");
  EXPECT_TRUE(target["loop_id"].is_null());
  EXPECT_EQ(target["workflow_id"], "W1");
  EXPECT_EQ(target["workflow_name"], "deploy");
  EXPECT_EQ(target["step_id"], "build");
}

TEST(GoalJson, PlanReadyAndRollup) {
  const json document = goal_json(sample_goal());
  const json& plan = document["plan"];
  ASSERT_TRUE(plan.is_array());
  ASSERT_EQ(plan.size(), 3u);
  const json& b = plan[1];
  EXPECT_EQ(b["key"], "b");
  EXPECT_EQ(b["objective"], "do b");
  EXPECT_EQ(b["status"], "pending");
  EXPECT_EQ(b["depends_on"], json::array({"a"}));
  EXPECT_EQ(b["priority"], 2);
  EXPECT_EQ(b["token_budget"], 5'000);
  EXPECT_EQ(b["tokens_used"], 1'200);
  EXPECT_EQ(b["sequence"], 1);
  EXPECT_EQ(b["ready"], true);
  EXPECT_TRUE(plan[0]["depends_on"].is_array());
  EXPECT_TRUE(plan[0]["depends_on"].empty());
  EXPECT_TRUE(plan[0]["token_budget"].is_null());
  EXPECT_EQ(plan[0]["ready"], false);
  EXPECT_EQ(plan[2]["ready"], false);
  EXPECT_EQ(document["ready"], json::array({"b"}));
  const json& rollup = document["rollup"];
  EXPECT_EQ(rollup["total"], 3);
  EXPECT_EQ(rollup["pending"], 2);
  EXPECT_EQ(rollup["active"], 0);
  EXPECT_EQ(rollup["blocked"], 0);
  EXPECT_EQ(rollup["complete"], 1);
  EXPECT_EQ(rollup["cancelled"], 0);
}

TEST(GoalJson, EmptyAndUnlimited) {
  Goal goal;
  goal.id = "g-2";
  goal.objective = "x";
  const json document = goal_json(goal);
  EXPECT_TRUE(document["token_budget"].is_null());
  EXPECT_TRUE(document["tokens_left"].is_null());
  EXPECT_TRUE(document["max_turns"].is_null());
  EXPECT_TRUE(document["plan"].is_array());
  EXPECT_TRUE(document["plan"].empty());
  EXPECT_TRUE(document["ready"].is_array());
  EXPECT_TRUE(document["ready"].empty());
  EXPECT_TRUE(document["last_summary"].is_null());
  EXPECT_EQ(document["stall_turns"], kDefaultStallTurns);
  EXPECT_EQ(document["drive"], "ready");
}

TEST(GoalJson, LimitedUntilAndErrors) {
  Goal goal = sample_goal();
  goal.status = GoalStatus::kUsageLimited;
  goal.limited_until = 1'700'000'900'000;
  goal.last_update_error = "goal.status must be active, blocked or complete";
  goal.tokens_used = 900'000;
  const json document = goal_json(goal);
  EXPECT_EQ(document["status"], "usage_limited");
  EXPECT_EQ(document["limited_until"], format_time(1'700'000'900'000));
  EXPECT_EQ(document["last_update_error"], "goal.status must be active, blocked or complete");
  EXPECT_EQ(document["tokens_left"], 0);
}

// Text that is not valid UTF-8 does not break the document.
TEST(GoalJson, InvalidTextIsReplaced) {
  Goal goal = sample_goal();
  goal.objective = "bad \xff byte";
  goal.last_summary = std::string("\xc0");
  const json document = json::parse(write_json(goal_json(goal)));
  EXPECT_TRUE(document["objective"].is_string());
}

GoalTurn sample_turn() {
  GoalTurn turn;
  turn.goal_id = "g-1";
  turn.turn = 4;
  turn.spent = true;
  turn.loop_run_id = "R1";
  turn.node_key = std::string("b");
  turn.run_status = RunStatus::kSucceeded;
  turn.status = GoalStatus::kActive;
  turn.tokens_used = 1'234;
  turn.evidence_json = R"({"tests":12})";
  turn.summary = "did b";
  turn.update_json = R"({"goal": {"evidence": {"tests": 12}}})";
  turn.created_at = 1'700'000'000'000;
  return turn;
}

TEST(GoalTurnJson, FieldsAndTypes) {
  const json document = turn_json(sample_turn());
  const std::set<std::string> expected = {
      "turn",        "goal_id",  "spent",        "loop_run_id", "workflow_run_id", "step_id",
      "dispatch_id", "node_key", "run_status",   "status",      "tokens_used",     "evidence",
      "summary",     "update",   "update_error", "created_at"};
  std::set<std::string> fields;
  for (const auto& [key, value] : document.items()) fields.insert(key);
  EXPECT_EQ(fields, expected);
  EXPECT_EQ(document["turn"], 4);
  EXPECT_EQ(document["goal_id"], "g-1");
  EXPECT_EQ(document["spent"], true);
  EXPECT_EQ(document["loop_run_id"], "R1");
  EXPECT_TRUE(document["workflow_run_id"].is_null());
  EXPECT_TRUE(document["step_id"].is_null());
  EXPECT_TRUE(document["dispatch_id"].is_null());
  EXPECT_EQ(document["node_key"], "b");
  EXPECT_EQ(document["run_status"], "succeeded");
  EXPECT_EQ(document["status"], "active");
  EXPECT_EQ(document["tokens_used"], 1'234);
  // Evidence is the JSON it was; the update the text the target left.
  EXPECT_TRUE(document["evidence"].is_object());
  EXPECT_EQ(document["evidence"]["tests"], 12);
  EXPECT_EQ(document["summary"], "did b");
  EXPECT_TRUE(document["update"].is_string());
  EXPECT_EQ(document["update"], R"({"goal": {"evidence": {"tests": 12}}})");
  EXPECT_TRUE(document["update_error"].is_null());
  EXPECT_EQ(document["created_at"], format_time(1'700'000'000'000));
}

TEST(GoalTurnJson, NoneIsNull) {
  GoalTurn turn;
  turn.goal_id = "g-1";
  turn.spent = false;
  turn.status = GoalStatus::kUsageLimited;
  turn.update_error = "the goal update is not valid JSON";
  const json document = turn_json(turn);
  EXPECT_EQ(document["spent"], false);
  EXPECT_TRUE(document["evidence"].is_null());
  EXPECT_TRUE(document["update"].is_null());
  EXPECT_TRUE(document["summary"].is_null());
  EXPECT_TRUE(document["node_key"].is_null());
  EXPECT_EQ(document["status"], "usage_limited");
  EXPECT_EQ(document["update_error"], "the goal update is not valid JSON");
}

TEST(GoalTurnJson, EvidenceOfEveryKind) {
  const std::pair<const char*, json> cases[] = {
      {"[1,2]", json::array({1, 2})}, {"\"text\"", json("text")},     {"42", json(42)},
      {"true", json(true)},           {"not json", json("not json")},
  };
  for (const auto& [evidence, expected] : cases) {
    GoalTurn turn = sample_turn();
    turn.evidence_json = evidence;
    EXPECT_EQ(turn_json(turn)["evidence"], expected) << evidence;
  }
  // Hostile stored text still gives a document.
  GoalTurn turn = sample_turn();
  turn.evidence_json = std::string("\xff");
  turn.update_json = "{\"goal\": \"\xfe\"}";
  EXPECT_TRUE(turn_json(turn).is_object());
}

}  // namespace
}  // namespace orrery
