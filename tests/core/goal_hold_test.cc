#include "core/goal_hold.h"

#include <gtest/gtest.h>

namespace orrery {
namespace {

constexpr TimeMs kNow = 1'800'000'000'000;

Goal goal_in(GoalStatus status) {
  Goal goal;
  goal.id = "0123456789abcdef0123456789abcdef";
  goal.objective = "fix the bugs";
  goal.status = status;
  return goal;
}

// Every status: a goal that takes runs holds nothing; one stopped short of
// its end holds, naming itself; a finished one holds nothing.
TEST(GoalHold, EveryStatusEitherTakesRunsHoldsThemOrIsDone) {
  for (const GoalStatus status :
       {GoalStatus::kActive, GoalStatus::kPaused, GoalStatus::kBlocked, GoalStatus::kUsageLimited,
        GoalStatus::kBudgetLimited, GoalStatus::kComplete, GoalStatus::kCancelled}) {
    const Goal goal = goal_in(status);
    const std::string hold = goal_hold(goal, kNow);
    const bool takes = goal_takes_runs(goal, kNow);
    const bool done = status == GoalStatus::kComplete || status == GoalStatus::kCancelled;
    SCOPED_TRACE(goal_status_name(status));
    EXPECT_EQ(takes, status == GoalStatus::kActive);
    EXPECT_EQ(hold.empty(), takes || done);
    if (!hold.empty()) {
      EXPECT_EQ(hold.rfind("goal " + goal.id + " ", 0), 0u) << hold;
      EXPECT_NE(goal_release_hint(goal), "");
    }
  }
}

TEST(GoalHold, ASpentBudgetSaysHowMuchOfItWasUsed) {
  Goal goal = goal_in(GoalStatus::kBudgetLimited);
  goal.token_budget = 6000;
  goal.tokens_used = 6250;
  EXPECT_EQ(goal_hold(goal, kNow), "goal " + goal.id + " budget 6,250/6,000 tokens");
  EXPECT_NE(goal_release_hint(goal).find("orrery goal budget " + goal.id + " --add"),
            std::string::npos);
}

TEST(GoalHold, ABlockedGoalSaysWhyAndAUsageLimitedOneUntilWhen) {
  Goal blocked = goal_in(GoalStatus::kBlocked);
  blocked.status_reason = "no progress in 3 turns";
  EXPECT_EQ(goal_hold(blocked, kNow), "goal " + blocked.id + " blocked: no progress in 3 turns");
  Goal limited = goal_in(GoalStatus::kUsageLimited);
  limited.limited_until = kNow + 1000;
  EXPECT_EQ(goal_hold(limited, kNow),
            "goal " + limited.id + " usage limited until " + format_time(kNow + 1000));
  // Its cooldown over, it takes runs again.
  EXPECT_TRUE(goal_takes_runs(limited, kNow + 1000));
  EXPECT_EQ(goal_hold(limited, kNow + 1000), "");
}

}  // namespace
}  // namespace orrery
