#include "core/goal.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace orrery {
namespace {

const std::vector<GoalStatus> kAllGoalStatuses = {
    GoalStatus::kActive,       GoalStatus::kPaused,        GoalStatus::kBlocked,
    GoalStatus::kUsageLimited, GoalStatus::kBudgetLimited, GoalStatus::kComplete,
    GoalStatus::kCancelled};

Goal goal_in(GoalStatus status, std::int64_t used = 0, std::optional<std::int64_t> budget = {}) {
  Goal goal;
  goal.id = "g-1";
  goal.objective = "make the suite pass";
  goal.status = status;
  goal.tokens_used = used;
  goal.token_budget = budget;
  return goal;
}

// Repeats `piece` until the text has `count` code points.
std::string code_points(const std::string& piece, size_t count) {
  std::string text;
  for (size_t index = 0; index < count; ++index) text += piece;
  return text;
}

TEST(GoalNames, EveryStatusRoundTrips) {
  for (GoalStatus status : kAllGoalStatuses) {
    auto parsed = parse_goal_status(goal_status_name(status));
    ASSERT_TRUE(parsed) << goal_status_name(status);
    EXPECT_EQ(*parsed, status);
  }
  for (NodeStatus status : {NodeStatus::kPending, NodeStatus::kActive, NodeStatus::kBlocked,
                            NodeStatus::kComplete, NodeStatus::kCancelled}) {
    auto parsed = parse_node_status(node_status_name(status));
    ASSERT_TRUE(parsed) << node_status_name(status);
    EXPECT_EQ(*parsed, status);
  }
  for (DriveMode mode : {DriveMode::kReady, DriveMode::kAgent, DriveMode::kOff}) {
    auto parsed = parse_drive_mode(drive_mode_name(mode));
    ASSERT_TRUE(parsed) << drive_mode_name(mode);
    EXPECT_EQ(*parsed, mode);
  }
}

TEST(GoalNames, TheNamesOfTheIssue) {
  EXPECT_STREQ(goal_status_name(GoalStatus::kUsageLimited), "usage_limited");
  EXPECT_STREQ(goal_status_name(GoalStatus::kBudgetLimited), "budget_limited");
  EXPECT_STREQ(drive_mode_name(DriveMode::kAgent), "agent");
  EXPECT_STREQ(goal_target_type_name(GoalTargetType::kStep), "step");
}

TEST(GoalNames, UnknownNamesAreRefused) {
  for (const char* text : {"", "Active", "done", "budget-limited", " active"}) {
    EXPECT_FALSE(parse_goal_status(text)) << text;
  }
  EXPECT_FALSE(parse_node_status("ready"));
  EXPECT_FALSE(parse_drive_mode("readyOnly"));
  EXPECT_FALSE(parse_drive_mode("aiDirected"));
}

TEST(GoalStatus, TerminalAreBudgetLimitedCompleteAndCancelled) {
  for (GoalStatus status : kAllGoalStatuses) {
    const bool terminal = status == GoalStatus::kBudgetLimited || status == GoalStatus::kComplete ||
                          status == GoalStatus::kCancelled;
    EXPECT_EQ(is_terminal(status), terminal) << goal_status_name(status);
  }
}

TEST(GoalTarget, OneKeyPerTarget) {
  GoalTarget loop;
  loop.loop_id = "L1";
  EXPECT_EQ(goal_target_key(loop), "loop:L1");
  GoalTarget workflow{GoalTargetType::kWorkflow, "", "wf-id", "deploy", ""};
  EXPECT_EQ(goal_target_key(workflow), "workflow:deploy");
  GoalTarget step{GoalTargetType::kStep, "", "wf-id", "deploy", "build"};
  EXPECT_EQ(goal_target_key(step), "step:deploy/build");
  // Another version of the same workflow is the same target.
  GoalTarget other_version = workflow;
  other_version.workflow_id = "wf-id-2";
  EXPECT_EQ(goal_target_key(other_version), goal_target_key(workflow));
}

// Every pair of statuses: a terminal goal refuses every other status with a
// conflict that names the goal and both statuses; the others allow any.
TEST(GoalTransition, EveryPairOfStatuses) {
  for (GoalStatus from : kAllGoalStatuses) {
    for (GoalStatus to : kAllGoalStatuses) {
      const Status allowed = check_goal_transition(goal_in(from), to);
      const std::string pair = std::string(goal_status_name(from)) + " -> " + goal_status_name(to);
      if (from == to || !is_terminal(from)) {
        EXPECT_TRUE(allowed) << pair << ": " << allowed.error().message;
        continue;
      }
      ASSERT_FALSE(allowed) << pair;
      EXPECT_EQ(allowed.error().code, ErrorCode::kConflict) << pair;
      const std::string& message = allowed.error().message;
      EXPECT_NE(message.find("g-1"), std::string::npos) << message;
      EXPECT_NE(message.find(goal_status_name(from)), std::string::npos) << message;
      EXPECT_NE(message.find(goal_status_name(to)), std::string::npos) << message;
      EXPECT_NE(message.find("final"), std::string::npos) << message;
    }
  }
}

TEST(GoalTransition, ABudgetLimitedGoalSaysHowToReopenIt) {
  const Status refused =
      check_goal_transition(goal_in(GoalStatus::kBudgetLimited), GoalStatus::kActive);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("orrery goal budget g-1 --add"), std::string::npos)
      << refused.error().message;
  const Status complete =
      check_goal_transition(goal_in(GoalStatus::kComplete), GoalStatus::kActive);
  ASSERT_FALSE(complete);
  EXPECT_EQ(complete.error().message.find("goal budget"), std::string::npos);
}

TEST(GoalBudget, RaisingItReopensABudgetLimitedGoal) {
  auto raised = change_budget(goal_in(GoalStatus::kBudgetLimited, 1000, 1000), 1500, 77);
  ASSERT_TRUE(raised) << raised.error().message;
  EXPECT_EQ(raised->status, GoalStatus::kActive);
  EXPECT_EQ(raised->token_budget, 1500);
  EXPECT_EQ(raised->updated_at, 77);
  EXPECT_NE(raised->status_reason.find("1500"), std::string::npos) << raised->status_reason;
}

TEST(GoalBudget, ABudgetNotAboveWhatWasUsedKeepsItBudgetLimited) {
  for (std::int64_t budget : {1, 999, 1000}) {
    auto changed = change_budget(goal_in(GoalStatus::kBudgetLimited, 1000, 500), budget, 5);
    ASSERT_TRUE(changed) << budget;
    EXPECT_EQ(changed->status, GoalStatus::kBudgetLimited) << budget;
    EXPECT_EQ(changed->token_budget, budget);
  }
}

TEST(GoalBudget, AtOrBelowWhatWasUsedMakesAnOpenGoalBudgetLimited) {
  for (GoalStatus status : {GoalStatus::kActive, GoalStatus::kPaused, GoalStatus::kBlocked,
                            GoalStatus::kUsageLimited}) {
    for (std::int64_t budget : {1, 999, 1000}) {
      auto changed = change_budget(goal_in(status, 1000, 5000), budget, 5);
      ASSERT_TRUE(changed) << goal_status_name(status);
      EXPECT_EQ(changed->status, GoalStatus::kBudgetLimited) << goal_status_name(status);
      EXPECT_NE(changed->status_reason.find("1000 used"), std::string::npos)
          << changed->status_reason;
    }
    auto above = change_budget(goal_in(status, 1000, 5000), 1001, 5);
    ASSERT_TRUE(above);
    EXPECT_EQ(above->status, status) << goal_status_name(status);
    EXPECT_EQ(above->token_budget, 1001);
  }
}

TEST(GoalBudget, RefusedOnCompleteAndCancelledGoals) {
  for (GoalStatus status : {GoalStatus::kComplete, GoalStatus::kCancelled}) {
    auto changed = change_budget(goal_in(status, 10, 100), 1000, 5);
    ASSERT_FALSE(changed) << goal_status_name(status);
    EXPECT_EQ(changed.error().code, ErrorCode::kConflict);
    EXPECT_NE(changed.error().message.find("g-1"), std::string::npos);
    EXPECT_NE(changed.error().message.find(goal_status_name(status)), std::string::npos);
  }
}

TEST(GoalBudget, MustBePositive) {
  for (std::int64_t budget : {std::int64_t(0), std::int64_t(-1), INT64_MIN}) {
    auto changed = change_budget(goal_in(GoalStatus::kActive), budget, 5);
    ASSERT_FALSE(changed) << budget;
    EXPECT_EQ(changed.error().code, ErrorCode::kUsage);
  }
}

TEST(GoalBudget, TokensLeftNeverNegative) {
  EXPECT_FALSE(tokens_left(goal_in(GoalStatus::kActive, 500)).has_value());
  EXPECT_EQ(tokens_left(goal_in(GoalStatus::kActive, 0, 1000)), 1000);
  EXPECT_EQ(tokens_left(goal_in(GoalStatus::kActive, 400, 1000)), 600);
  EXPECT_EQ(tokens_left(goal_in(GoalStatus::kActive, 1000, 1000)), 0);
  EXPECT_EQ(tokens_left(goal_in(GoalStatus::kBudgetLimited, 5000, 1000)), 0);
}

TEST(GoalObjective, IsTrimmed) {
  EXPECT_EQ(*check_objective("  make it pass \n"), "make it pass");
  EXPECT_EQ(*check_objective("line one\nline two"), "line one\nline two");
}

TEST(GoalObjective, EmptyOrBlankIsRefused) {
  for (const char* text : {"", " ", "\n\t  \r\n"}) {
    auto objective = check_objective(text);
    ASSERT_FALSE(objective) << text;
    EXPECT_NE(objective.error().message.find("empty"), std::string::npos);
  }
}

// The limit counts code points, not bytes, whatever their UTF-8 length.
TEST(GoalObjective, AtMost4000CodePoints) {
  for (const std::string piece : {"a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"}) {
    const std::string longest = code_points(piece, kMaxObjectiveCharacters);
    auto accepted = check_objective(longest);
    ASSERT_TRUE(accepted) << piece.size() << "-byte: " << accepted.error().message;
    EXPECT_EQ(*accepted, longest);
    auto refused = check_objective(longest + piece);
    ASSERT_FALSE(refused) << piece.size();
    EXPECT_NE(refused.error().message.find("4001"), std::string::npos) << refused.error().message;
    // White space around does not count.
    EXPECT_TRUE(check_objective("  " + longest + "\n"));
  }
}

TEST(GoalObjective, InvalidUtf8IsRefused) {
  for (const char* text :
       {"\xff", "ok \xc0\xaf", "\xed\xa0\x80", "cut \xe2\x82", "\xf4\x90\x80\x80"}) {
    auto objective = check_objective(text);
    ASSERT_FALSE(objective);
    EXPECT_NE(objective.error().message.find("UTF-8"), std::string::npos)
        << objective.error().message;
  }
}

}  // namespace
}  // namespace orrery

namespace orrery {
namespace {

TEST(GoalObjective, ControlCharactersAndInvisibleTextAreRefusedNewlinesAndTabsKept) {
  for (int c = 0; c < 0x20; ++c) {
    const std::string text = std::string("fix ") + char(c) + " it";
    auto checked = check_objective(text);
    EXPECT_EQ(checked.ok(), c == '\n' || c == '\t') << c;
  }
  EXPECT_FALSE(check_objective("fix \x7f it").ok());
  for (const char* invisible : {"\u00a0\u2003", "\u200b", "\xEF\xBB\xBF", "\u2060 \u3000"}) {
    auto checked = check_objective(invisible);
    ASSERT_FALSE(checked.ok()) << invisible;
    EXPECT_NE(checked.error().message.find("empty"), std::string::npos);
  }
  EXPECT_EQ(*check_objective("\xEF\xBB\xBF"
                             "fix it\n"),
            "fix it");  // a file's byte order mark
}

}  // namespace
}  // namespace orrery
