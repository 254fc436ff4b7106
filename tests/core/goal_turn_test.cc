#include "core/goal_turn.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/goal_plan.h"

namespace orrery {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

PlanNode node(const std::string& key, std::vector<std::string> depends_on = {},
              NodeStatus status = NodeStatus::kPending) {
  PlanNode node;
  node.key = key;
  node.objective = "do " + key;
  node.depends_on = std::move(depends_on);
  node.status = status;
  return node;
}

// An active goal of 10k tokens over the plan a <- b <- c.
Goal goal_with_plan() {
  Goal goal;
  goal.id = "g-1";
  goal.objective = "ship it";
  goal.token_budget = 10'000;
  goal.plan = {node("a"), node("b", {"a"}), node("c", {"b"})};
  for (size_t index = 0; index < goal.plan.size(); ++index) goal.plan[index].sequence = index;
  return goal;
}

TurnInput input(std::int64_t tokens, std::optional<std::string> update = {},
                std::string given_node = "a") {
  TurnInput turn;
  turn.tokens = tokens;
  turn.update = std::move(update);
  turn.given_node = std::move(given_node);
  turn.now = 1'000;
  return turn;
}

const std::vector<GoalStatus> kAllGoalStatuses = {
    GoalStatus::kActive,       GoalStatus::kPaused,        GoalStatus::kBlocked,
    GoalStatus::kUsageLimited, GoalStatus::kBudgetLimited, GoalStatus::kComplete,
    GoalStatus::kCancelled};

TEST(GoalTurn, TokensAreAddedToTheGoalAndTheNodeGiven) {
  Goal goal = goal_with_plan();
  goal.tokens_used = 100;
  goal.plan[0].tokens_used = 10;
  const TurnSettlement settled = settle_turn(goal, input(250));
  EXPECT_EQ(settled.goal.tokens_used, 350);
  EXPECT_EQ(settled.goal.plan[0].tokens_used, 260);
  EXPECT_EQ(settled.goal.plan[1].tokens_used, 0);
  EXPECT_EQ(settled.turn.tokens_used, 250);
  EXPECT_EQ(settled.turn.node_key, "a");
  EXPECT_EQ(settled.turn.goal_id, "g-1");
  EXPECT_EQ(settled.turn.turn, 1);
  EXPECT_TRUE(settled.turn.spent);
  EXPECT_EQ(settled.turn.created_at, 1'000);
  EXPECT_EQ(settled.goal.turns, 1);
  EXPECT_EQ(settled.goal.status, GoalStatus::kActive);
  EXPECT_EQ(settled.goal.updated_at, 1'000);
  EXPECT_FALSE(settled.stops_target);
}

TEST(GoalTurn, TheUpdatesNodeGetsTheTokens) {
  Goal goal = goal_with_plan();
  goal.plan[0].status = NodeStatus::kComplete;
  const TurnSettlement settled =
      settle_turn(goal, input(40, R"({"goal": {"node": "b", "node_status": "active"}})"));
  EXPECT_EQ(settled.turn.node_key, "b");
  EXPECT_EQ(settled.goal.plan[0].tokens_used, 0);
  EXPECT_EQ(settled.goal.plan[1].tokens_used, 40);
  EXPECT_EQ(settled.goal.plan[1].status, NodeStatus::kActive);
}

TEST(GoalTurn, NegativeAndHugeTokenCountsAreSafe) {
  Goal goal = goal_with_plan();
  goal.token_budget.reset();
  const TurnSettlement negative = settle_turn(goal, input(-500));
  EXPECT_EQ(negative.goal.tokens_used, 0);
  EXPECT_EQ(negative.turn.tokens_used, 0);
  goal.tokens_used = INT64_MAX - 1;
  goal.plan[0].tokens_used = INT64_MAX - 1;
  const TurnSettlement huge = settle_turn(goal, input(INT64_MAX));
  EXPECT_EQ(huge.goal.tokens_used, INT64_MAX);
  EXPECT_EQ(huge.goal.plan[0].tokens_used, INT64_MAX);
}

TEST(GoalTurn, ANodeOverItsBudgetIsBlocked) {
  for (std::int64_t tokens : {99, 100, 150}) {
    Goal goal = goal_with_plan();
    goal.plan[0].token_budget = 100;
    const TurnSettlement settled = settle_turn(goal, input(tokens));
    EXPECT_EQ(settled.goal.plan[0].status,
              tokens < 100 ? NodeStatus::kPending : NodeStatus::kBlocked)
        << tokens;
  }
  // A node the update completes stays complete.
  Goal goal = goal_with_plan();
  goal.plan[0].token_budget = 100;
  const TurnSettlement settled =
      settle_turn(goal, input(500, R"({"goal": {"node": "a", "node_status": "complete"}})"));
  EXPECT_EQ(settled.goal.plan[0].status, NodeStatus::kComplete);
}

TEST(GoalTurn, AValidUpdateIsApplied) {
  const Goal goal = goal_with_plan();
  const std::string update = R"({"goal": {"status": "active", "node": "a",
      "node_status": "complete", "evidence": {"tests": 3}, "summary": "a is done"}})";
  const TurnSettlement settled = settle_turn(goal, input(10, update));
  EXPECT_EQ(settled.goal.plan[0].status, NodeStatus::kComplete);
  EXPECT_EQ(settled.goal.last_evidence_json, R"({"tests":3})");
  EXPECT_EQ(settled.goal.last_summary, "a is done");
  EXPECT_EQ(settled.turn.evidence_json, R"({"tests":3})");
  EXPECT_EQ(settled.turn.summary, "a is done");
  EXPECT_EQ(settled.turn.update_json, update);
  EXPECT_TRUE(settled.turn.update_error.empty());
  EXPECT_TRUE(settled.goal.last_update_error.empty());
}

TEST(GoalTurn, AProposedPlanIsMerged) {
  Goal goal = goal_with_plan();
  goal.plan[0].status = NodeStatus::kComplete;
  const TurnSettlement settled = settle_turn(
      goal, input(10, R"({"goal": {"plan": [{"key": "x", "objective": "new", "depends_on": ["a"]},
                                            {"key": "c", "objective": "keep c"}]}})"));
  ASSERT_TRUE(settled.turn.update_error.empty()) << settled.turn.update_error;
  ASSERT_EQ(settled.goal.plan.size(), 3u);
  EXPECT_EQ(settled.goal.plan[0].key, "a");
  EXPECT_EQ(settled.goal.plan[1].key, "x");
  EXPECT_EQ(settled.goal.plan[2].key, "c");
  EXPECT_EQ(settled.goal.plan[2].objective, "keep c");
  EXPECT_EQ(settled.goal.plan[2].sequence, 2);
}

// Whatever is wrong with it, an invalid update is recorded with its error and
// changes nothing of the plan; the run's tokens still count.
TEST(GoalTurn, AnInvalidUpdateIsRecordedAndThePlanKept) {
  const std::pair<const char*, const char*> cases[] = {
      {"not json", "not valid JSON"},
      {"{\"goal\": {\"status\": \"complete\",}}", "not valid JSON"},
      {R"({"goal": {"status": "paused"}})", "goal.status"},
      {R"({"goal": {"colour": "red"}})", "'colour'"},
      {R"({"goal": {"node": "zzz", "node_status": "complete"}})", "goal.node names no node"},
      {R"({"goal": {"node": "zzz"}})", "goal.node names no node"},
      {R"({"goal": {"node": "a", "node_status": "complete",
                    "plan": [{"key": "p", "objective": "q", "depends_on": ["p"]}]}})",
       "the plan has a dependency cycle through node p"},
      {R"({"goal": {"plan": [{"key": "p", "objective": "q", "depends_on": ["nope"]}]}})",
       "node p depends on the missing node nope"},
      {"\xff\xfe", "UTF-8"},
  };
  for (const auto& [update, expected] : cases) {
    const Goal goal = goal_with_plan();
    const TurnSettlement settled = settle_turn(goal, input(70, std::string(update)));
    EXPECT_TRUE(contains(settled.turn.update_error, expected))
        << update << "\n  gave: " << settled.turn.update_error;
    EXPECT_EQ(settled.goal.last_update_error, settled.turn.update_error);
    EXPECT_EQ(settled.goal.plan.size(), goal.plan.size());
    for (size_t index = 0; index < goal.plan.size(); ++index) {
      EXPECT_EQ(settled.goal.plan[index].key, goal.plan[index].key) << update;
      EXPECT_EQ(settled.goal.plan[index].status, goal.plan[index].status) << update;
    }
    EXPECT_EQ(settled.turn.update_json, update);
    EXPECT_TRUE(settled.turn.summary.empty());
    EXPECT_EQ(settled.turn.node_key, "a") << "the node given";
    EXPECT_EQ(settled.goal.tokens_used, 70);
    EXPECT_EQ(settled.goal.plan[0].tokens_used, 70);
    EXPECT_EQ(settled.goal.status, GoalStatus::kActive);
    EXPECT_TRUE(settled.turn.spent);
  }
}

TEST(GoalTurn, AProposalThatDependsOnANodeItDropsIsRefused) {
  const Goal goal = goal_with_plan();
  const TurnSettlement settled = settle_turn(
      goal,
      input(0, R"({"goal": {"plan": [{"key": "x", "objective": "y", "depends_on": ["b"]}]}})"));
  EXPECT_EQ(settled.turn.update_error, "the proposed plan: node x depends on the missing node b");
  EXPECT_EQ(settled.goal.plan, goal.plan);
}

// A proposal valid alone can still be refused once merged: a complete node
// that is kept depends on a node the proposal drops.
TEST(GoalTurn, AProposalRefusedOnceMergedIsRecorded) {
  Goal goal = goal_with_plan();
  goal.plan[2].status = NodeStatus::kComplete;
  const TurnSettlement settled =
      settle_turn(goal, input(1, R"({"goal": {"plan": [{"key": "x", "objective": "y"}]}})"));
  EXPECT_EQ(settled.turn.update_error, "the proposed plan: node c depends on the missing node b");
  EXPECT_EQ(settled.goal.plan.size(), 3u);
}

TEST(GoalTurn, ALaterValidUpdateClearsTheLastError) {
  Goal goal = goal_with_plan();
  goal.last_update_error = "old";
  EXPECT_TRUE(settle_turn(goal, input(1, R"({"goal": {}})")).goal.last_update_error.empty());
  EXPECT_TRUE(settle_turn(goal, input(1)).goal.last_update_error.empty());
}

TEST(GoalTurn, CompleteWithNothingLeftCompletesTheGoal) {
  Goal goal = goal_with_plan();
  goal.plan[0].status = NodeStatus::kComplete;
  goal.plan[1].status = NodeStatus::kComplete;
  goal.plan[2].status = NodeStatus::kBlocked;  // not left: only pending and active are
  const TurnSettlement settled =
      settle_turn(goal, input(5, R"({"goal": {"status": "complete", "summary": "all green"}})"));
  EXPECT_EQ(settled.goal.status, GoalStatus::kComplete);
  EXPECT_EQ(settled.goal.status_reason, "all green");
  EXPECT_TRUE(settled.stops_target);
  EXPECT_TRUE(settled.turn.spent);
  EXPECT_EQ(settled.turn.status, GoalStatus::kComplete);
  EXPECT_EQ(settled.goal.turns, 1);
  // Without a plan, and without a summary.
  Goal bare;
  bare.id = "g-2";
  bare.objective = "x";
  const TurnSettlement plain = settle_turn(bare, input(5, R"({"goal": {"status": "complete"}})"));
  EXPECT_EQ(plain.goal.status, GoalStatus::kComplete);
  EXPECT_EQ(plain.goal.status_reason, "the objective is met");
}

TEST(GoalTurn, CompleteWithNodesLeftIsAnUpdateError) {
  Goal goal = goal_with_plan();
  goal.plan[1].status = NodeStatus::kActive;
  const TurnSettlement settled =
      settle_turn(goal, input(5, R"({"goal": {"status": "complete", "node": "a",
                                              "node_status": "complete"}})"));
  EXPECT_EQ(settled.goal.status, GoalStatus::kActive);
  EXPECT_FALSE(settled.stops_target);
  EXPECT_TRUE(contains(settled.turn.update_error, "nodes are left: b, c"))
      << settled.turn.update_error;
  EXPECT_TRUE(contains(settled.turn.update_error, "\"force\": true"));
  EXPECT_EQ(settled.goal.last_update_error, settled.turn.update_error);
  // The rest of the update holds.
  EXPECT_EQ(settled.goal.plan[0].status, NodeStatus::kComplete);
}

TEST(GoalTurn, CompleteWithForceCancelsWhatIsLeft) {
  Goal goal = goal_with_plan();
  goal.plan[1].status = NodeStatus::kActive;
  goal.plan[2].status = NodeStatus::kBlocked;
  const TurnSettlement settled =
      settle_turn(goal, input(5, R"({"goal": {"status": "complete", "force": true}})"));
  EXPECT_EQ(settled.goal.status, GoalStatus::kComplete);
  EXPECT_TRUE(settled.stops_target);
  EXPECT_TRUE(settled.turn.update_error.empty());
  EXPECT_EQ(settled.goal.plan[0].status, NodeStatus::kCancelled);
  EXPECT_EQ(settled.goal.plan[1].status, NodeStatus::kCancelled);
  EXPECT_EQ(settled.goal.plan[2].status, NodeStatus::kBlocked);
}

// The work is done: complete wins over the budget, the usage limit, the
// turn limit and the stall limit.
TEST(GoalTurn, CompleteWinsOverEveryLimit) {
  Goal goal = goal_with_plan();
  goal.plan.clear();
  goal.token_budget = 100;
  goal.tokens_used = 90;
  goal.max_turns = 1;
  goal.stall_turns = 1;
  TurnInput turn = input(500, R"({"goal": {"status": "complete"}})", "");
  turn.usage_limited = true;
  turn.limited_until = 99'000;
  const TurnSettlement settled = settle_turn(goal, turn);
  EXPECT_EQ(settled.goal.status, GoalStatus::kComplete);
  EXPECT_TRUE(settled.stops_target);
  EXPECT_TRUE(settled.turn.spent);
  EXPECT_EQ(settled.goal.tokens_used, 590);
  EXPECT_FALSE(settled.goal.limited_until.has_value());
}

TEST(GoalTurn, TheBudgetReachedMakesItBudgetLimited) {
  for (std::int64_t tokens : {9'999, 10'000, 50'000}) {
    const TurnSettlement settled = settle_turn(goal_with_plan(), input(tokens));
    if (tokens < 10'000) {
      EXPECT_EQ(settled.goal.status, GoalStatus::kActive);
      EXPECT_FALSE(settled.stops_target);
      continue;
    }
    EXPECT_EQ(settled.goal.status, GoalStatus::kBudgetLimited) << tokens;
    EXPECT_TRUE(settled.stops_target);
    EXPECT_TRUE(settled.turn.spent);
    EXPECT_EQ(settled.goal.turns, 1);
    EXPECT_EQ(settled.turn.turn, 1);
    EXPECT_TRUE(contains(settled.goal.status_reason, "the budget of 10k tokens is used up"))
        << settled.goal.status_reason;
  }
}

// The budget comes before the update's blocked, the turn limit and the stall limit.
TEST(GoalTurn, TheBudgetComesBeforeTheOtherStops) {
  Goal goal = goal_with_plan();
  goal.max_turns = 1;
  goal.stall_turns = 1;
  const TurnSettlement settled =
      settle_turn(goal, input(20'000, R"({"goal": {"status": "blocked"}})"));
  EXPECT_EQ(settled.goal.status, GoalStatus::kBudgetLimited);
}

TEST(GoalTurn, AUsageLimitedRunSpendsNoTurn) {
  Goal goal = goal_with_plan();
  goal.turns = 4;
  goal.turns_without_progress = 2;
  TurnInput turn = input(30);
  turn.usage_limited = true;
  turn.limited_until = 50'000;
  const TurnSettlement settled = settle_turn(goal, turn);
  EXPECT_EQ(settled.goal.status, GoalStatus::kUsageLimited);
  EXPECT_EQ(settled.goal.limited_until, 50'000);
  EXPECT_FALSE(settled.stops_target);
  EXPECT_FALSE(settled.turn.spent);
  EXPECT_EQ(settled.goal.turns, 4);
  EXPECT_EQ(settled.turn.turn, 5);
  EXPECT_EQ(settled.goal.turns_without_progress, 2);
  EXPECT_EQ(settled.goal.tokens_used, 30) << "its tokens count";
  EXPECT_EQ(settled.turn.status, GoalStatus::kUsageLimited);
  // Without a cooldown's end: until now.
  turn.limited_until.reset();
  EXPECT_EQ(settle_turn(goal, turn).goal.limited_until, 1'000);
}

// A run that both hits the usage limit and uses up the budget: budget_limited,
// and the turn is still not spent (nor numbered as the one before it).
TEST(GoalTurn, AUsageLimitedRunThatReachesTheBudgetSpendsNoTurn) {
  Goal goal = goal_with_plan();
  goal.turns = 4;
  TurnInput turn = input(20'000);
  turn.usage_limited = true;
  turn.limited_until = 50'000;
  const TurnSettlement settled = settle_turn(goal, turn);
  EXPECT_EQ(settled.goal.status, GoalStatus::kBudgetLimited);
  EXPECT_TRUE(settled.stops_target);
  EXPECT_EQ(settled.goal.turns, 4);
  EXPECT_FALSE(settled.turn.spent);
  EXPECT_EQ(settled.turn.turn, 5);
}

TEST(GoalTurn, TheTurnAfterTheCooldownMakesItActive) {
  Goal goal = goal_with_plan();
  goal.status = GoalStatus::kUsageLimited;
  goal.limited_until = 500;
  goal.turns = 2;
  const TurnSettlement settled = settle_turn(goal, input(10));
  EXPECT_EQ(settled.goal.status, GoalStatus::kActive);
  EXPECT_FALSE(settled.goal.limited_until.has_value());
  EXPECT_TRUE(settled.turn.spent);
  EXPECT_EQ(settled.goal.turns, 3);
  EXPECT_EQ(settled.turn.turn, 3);
}

TEST(GoalTurn, CooldownOver) {
  Goal goal = goal_with_plan();
  goal.status = GoalStatus::kUsageLimited;
  goal.limited_until = 5'000;
  EXPECT_FALSE(cooldown_over(goal, 4'999));
  EXPECT_TRUE(cooldown_over(goal, 5'000));
  EXPECT_TRUE(cooldown_over(goal, 9'000));
  goal.limited_until.reset();
  EXPECT_FALSE(cooldown_over(goal, 9'000));
  goal.limited_until = 5'000;
  for (GoalStatus status : kAllGoalStatuses) {
    if (status == GoalStatus::kUsageLimited) continue;
    goal.status = status;
    EXPECT_FALSE(cooldown_over(goal, 9'000)) << goal_status_name(status);
  }
}

TEST(GoalTurn, MaxTurnsReachedBlocks) {
  Goal goal = goal_with_plan();
  goal.max_turns = 3;
  goal.token_budget.reset();
  for (int turn = 1; turn <= 3; ++turn) {
    // Progress every turn, so that only the turn limit stops it.
    const std::string update = R"({"goal": {"evidence": {"turn": )" + std::to_string(turn) + "}}}";
    const TurnSettlement settled = settle_turn(goal, input(1, update));
    goal = settled.goal;
    EXPECT_EQ(settled.turn.turn, turn);
    if (turn < 3) {
      EXPECT_EQ(goal.status, GoalStatus::kActive) << turn;
      EXPECT_FALSE(settled.stops_target);
    } else {
      EXPECT_EQ(goal.status, GoalStatus::kBlocked);
      EXPECT_EQ(goal.status_reason, "reached its limit of 3 turns");
      EXPECT_TRUE(settled.stops_target);
    }
  }
}

TEST(GoalTurn, StallTurnsWithoutProgressBlock) {
  for (int stall : {1, 2, 3, 5}) {
    Goal goal = goal_with_plan();
    goal.stall_turns = stall;
    for (int turn = 1; turn <= stall; ++turn) {
      const TurnSettlement settled = settle_turn(goal, input(1, R"({"goal": {"summary": "hm"}})"));
      goal = settled.goal;
      EXPECT_EQ(goal.turns_without_progress, turn);
      if (turn < stall) {
        EXPECT_EQ(goal.status, GoalStatus::kActive) << stall << " " << turn;
      } else {
        EXPECT_EQ(goal.status, GoalStatus::kBlocked) << stall;
        EXPECT_EQ(goal.status_reason, "no progress in " + std::to_string(stall) + " turns");
        EXPECT_TRUE(settled.stops_target);
      }
    }
  }
}

TEST(GoalTurn, EvidenceThatChangesIsProgress) {
  Goal goal = goal_with_plan();
  goal.stall_turns = 2;
  for (int turn = 0; turn < 10; ++turn) {
    const std::string update =
        R"({"goal": {"evidence": {"passing": )" + std::to_string(turn) + "}}}";
    goal = settle_turn(goal, input(1, update)).goal;
    EXPECT_EQ(goal.status, GoalStatus::kActive) << turn;
    EXPECT_EQ(goal.turns_without_progress, 0);
  }
  // The same evidence again is not.
  const std::string same = R"({"goal": {"evidence": {"passing": 9}}})";
  goal = settle_turn(goal, input(1, same)).goal;
  EXPECT_EQ(goal.turns_without_progress, 1);
  goal = settle_turn(goal, input(1, same)).goal;
  EXPECT_EQ(goal.status, GoalStatus::kBlocked);
  EXPECT_EQ(goal.status_reason, "no progress in 2 turns");
}

TEST(GoalTurn, ANodeStatusChangeOrAPlanChangeIsProgress) {
  Goal goal = goal_with_plan();
  goal.turns_without_progress = 2;
  goal = settle_turn(goal, input(1, R"({"goal": {"node": "a", "node_status": "active"}})")).goal;
  EXPECT_EQ(goal.turns_without_progress, 0);
  goal.turns_without_progress = 2;
  // The same status again is not.
  goal = settle_turn(goal, input(1, R"({"goal": {"node": "a", "node_status": "active"}})")).goal;
  EXPECT_EQ(goal.status, GoalStatus::kBlocked);
  goal = goal_with_plan();
  goal.turns_without_progress = 2;
  goal = settle_turn(goal, input(1, R"({"goal": {"plan": [{"key": "a", "objective": "redo a"}]}})"))
             .goal;
  EXPECT_EQ(goal.turns_without_progress, 0);
  EXPECT_EQ(goal.status, GoalStatus::kActive);
}

TEST(GoalTurn, AnInvalidUpdateIsNoProgress) {
  Goal goal = goal_with_plan();
  goal.stall_turns = 2;
  goal = settle_turn(goal, input(1, R"({"goal": {"evidence": {"x": 1}, "bogus": 1}})")).goal;
  goal = settle_turn(goal, input(1, R"({"goal": {"evidence": {"x": 2}, "bogus": 1}})")).goal;
  EXPECT_EQ(goal.status, GoalStatus::kBlocked);
}

TEST(GoalTurn, AnUpdateSayingBlockedBlocks) {
  const TurnSettlement settled = settle_turn(
      goal_with_plan(), input(1, R"({"goal": {"status": "blocked", "summary": "need a key"}})"));
  EXPECT_EQ(settled.goal.status, GoalStatus::kBlocked);
  EXPECT_EQ(settled.goal.status_reason, "need a key");
  EXPECT_TRUE(settled.stops_target);
  const TurnSettlement bare =
      settle_turn(goal_with_plan(), input(1, R"({"goal": {"status": "blocked"}})"));
  EXPECT_EQ(bare.goal.status_reason, "the target reported it is blocked");
}

// A goal paused, blocked or final meanwhile keeps its status; its tokens
// still count, and the turn is not spent.
TEST(GoalTurn, AGoalThatIsNotOpenKeepsItsStatusButCountsTokens) {
  for (GoalStatus status : {GoalStatus::kPaused, GoalStatus::kBlocked, GoalStatus::kBudgetLimited,
                            GoalStatus::kComplete, GoalStatus::kCancelled}) {
    Goal goal = goal_with_plan();
    goal.status = status;
    goal.status_reason = "as it was";
    goal.turns = 2;
    goal.tokens_used = 20'000;
    goal.max_turns = 1;
    TurnInput turn = input(70, R"({"goal": {"status": "complete", "force": true}})");
    turn.usage_limited = true;
    const TurnSettlement settled = settle_turn(goal, turn);
    EXPECT_EQ(settled.goal.status, status) << goal_status_name(status);
    EXPECT_EQ(settled.goal.status_reason, "as it was");
    EXPECT_EQ(settled.goal.tokens_used, 20'070);
    EXPECT_EQ(settled.goal.plan[0].tokens_used, 70);
    EXPECT_EQ(settled.goal.turns, 2);
    EXPECT_FALSE(settled.turn.spent);
    EXPECT_EQ(settled.turn.turn, 3);
    EXPECT_EQ(settled.turn.status, status);
    EXPECT_FALSE(settled.stops_target);
  }
}

// Its update is recorded but refused: a paused or final goal's plan does
// not change behind the person who stopped it.
TEST(GoalTurn, AGoalThatIsNotOpenTakesNoUpdate) {
  for (GoalStatus status : {GoalStatus::kPaused, GoalStatus::kBlocked, GoalStatus::kBudgetLimited,
                            GoalStatus::kComplete, GoalStatus::kCancelled}) {
    Goal goal = goal_with_plan();
    goal.status = status;
    const std::string update =
        R"({"goal": {"node": "a", "node_status": "complete", "evidence": {"x": 1}}})";
    const TurnSettlement settled = settle_turn(goal, input(5, update));
    EXPECT_EQ(settled.goal.plan, [&] {
      std::vector<PlanNode> plan = goal.plan;
      for (PlanNode& node : plan) {
        if (node.key == settled.turn.node_key) node.tokens_used += 5;
      }
      return plan;
    }()) << goal_status_name(status);
    EXPECT_EQ(settled.turn.update_json, update);
    EXPECT_NE(settled.turn.update_error.find("not applied"), std::string::npos)
        << settled.turn.update_error;
    EXPECT_TRUE(settled.goal.last_evidence_json.empty());
  }
}

// A sequence of turns: the plan driven to complete.
TEST(GoalTurn, APlanDrivenToComplete) {
  Goal goal = goal_with_plan();
  int turn = 0;
  for (const char* key : {"a", "b", "c"}) {
    ++turn;
    const std::string update = std::string(R"({"goal": {"node": ")") + key +
                               R"(", "node_status": "complete")" +
                               (std::string(key) == "c" ? R"(, "status": "complete")" : "") + "}}";
    const TurnSettlement settled = settle_turn(goal, input(1'000, update, key));
    EXPECT_TRUE(settled.turn.update_error.empty()) << settled.turn.update_error;
    goal = settled.goal;
    EXPECT_EQ(settled.turn.turn, turn);
    EXPECT_EQ(settled.stops_target, turn == 3);
  }
  EXPECT_EQ(goal.status, GoalStatus::kComplete);
  EXPECT_EQ(goal.turns, 3);
  EXPECT_EQ(goal.tokens_used, 3'000);
  for (const PlanNode& done : goal.plan) {
    EXPECT_EQ(done.status, NodeStatus::kComplete);
    EXPECT_EQ(done.tokens_used, 1'000);
  }
}

}  // namespace
}  // namespace orrery

namespace orrery {
namespace {

// Every failed run none of whose work started is recorded and not spent,
// whatever the goal's limits; one that started, or used tokens, is a turn.
TEST(GoalTurnNeverStarted, IsRecordedButSpendsNothingWhateverTheGoalsLimits) {
  for (const int max_turns : {1, 5}) {
    for (const int stall : {1, 3}) {
      for (const bool started : {false, true}) {
        for (const std::int64_t tokens : {std::int64_t(0), std::int64_t(40)}) {
          Goal goal;
          goal.id = "g-1";
          goal.objective = "ship it";
          goal.max_turns = max_turns;
          goal.stall_turns = stall;
          TurnInput turn;
          turn.run_status = RunStatus::kFailed;
          turn.tokens = tokens;
          turn.work_started = started;
          turn.run_error = "the worktree could not be made";
          const TurnSettlement settled = settle_turn(goal, turn);
          const bool never = !started && tokens == 0;
          SCOPED_TRACE(testing::Message() << "max_turns " << max_turns << " stall " << stall
                                          << " started " << started << " tokens " << tokens);
          EXPECT_EQ(settled.turn.spent, !never);
          EXPECT_EQ(settled.goal.turns, never ? 0 : 1);
          EXPECT_EQ(settled.goal.tokens_used, tokens);
          if (never) {
            EXPECT_EQ(settled.goal.status, GoalStatus::kActive);
            EXPECT_EQ(settled.turn.turn, 1) << "the number it would have been";
            EXPECT_NE(settled.turn.summary.find("the worktree could not be made"),
                      std::string::npos);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace orrery
