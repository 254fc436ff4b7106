// ops goal changes over a real SQLite store: a budget raised by --add or
// set by --set, the state it reopens or limits, and every refusal leaving
// the goal as it was.
#include "ops/goals.h"

#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/ids.h"
#include "core/token_amount.h"
#include "support/sqlite_test_store.h"

namespace orrery {
namespace {

constexpr TimeMs kNow = 1'796'083'200'000;  // 2026-12-01T00:00:00.000Z

class OpsGoals : public ::testing::Test {
 protected:
  // A goal of a new loop with `budget` of which `used` tokens are spent.
  Goal add_goal(std::optional<std::int64_t> budget, std::int64_t used = 0) {
    Loop loop;
    std::array<std::uint8_t, 10> bytes{};
    bytes[0] = std::uint8_t(++loops_);
    loop.id = make_id(kNow, bytes);
    loop.name = "loop-" + std::to_string(loops_);
    loop.schedule.type = ScheduleType::kInterval;
    loop.schedule.every_ms = 60'000;
    loop.target.argv = {"/bin/true"};
    loop.created_at = loop.updated_at = kNow;
    EXPECT_TRUE(store_->create_loop(loop).ok());
    Goal goal;
    goal.objective = "pass the tests";
    goal.target.type = GoalTargetType::kLoop;
    goal.target.loop_id = loop.id;
    goal.token_budget = budget;
    auto created = store_->create_goal(goal, kNow);
    EXPECT_TRUE(created.ok()) << created.error().message;
    if (!created) return goal;
    if (used == 0) return *created;
    auto spent = store_->change_goal(
        created->id,
        [&](Goal read) -> Result<Goal> {
          read.tokens_used = used;
          if (read.token_budget && used >= *read.token_budget)
            read.status = GoalStatus::kBudgetLimited;
          return read;
        },
        kNow);
    EXPECT_TRUE(spent.ok());
    return spent.ok() ? *spent : *created;
  }

  ops::GoalPlace place() { return {*store_, store_.dir().path(), kNow + 1000}; }

  Goal stored(const std::string& id) { return store_->resolve_goal(id).value(); }

  testing::SqliteTestStore store_{kNow};
  int loops_ = 0;
};

TEST_F(OpsGoals, AddingRaisesTheBudgetAndReopensAGoalItLimited) {
  const Goal limited = add_goal(1000, 1000);
  ASSERT_EQ(limited.status, GoalStatus::kBudgetLimited);
  auto raised = ops::change_goal_budget(place(), limited.id, {true, 500});
  ASSERT_TRUE(raised.ok()) << raised.error().message;
  EXPECT_EQ(raised->token_budget, 1500);
  EXPECT_EQ(raised->status, GoalStatus::kActive);
  EXPECT_EQ(stored(limited.id).token_budget, 1500);
  EXPECT_EQ(stored(limited.id).updated_at, kNow + 1000);
}

TEST_F(OpsGoals, AddingToAGoalWithoutABudgetStartsFromWhatItUsed) {
  const Goal open = add_goal(std::nullopt, 700);
  auto raised = ops::change_goal_budget(place(), open.id, {true, 300});
  ASSERT_TRUE(raised.ok()) << raised.error().message;
  EXPECT_EQ(raised->token_budget, 1000);
}

TEST_F(OpsGoals, SettingBelowWhatWasUsedLimitsTheGoal) {
  const Goal goal = add_goal(5000, 2000);
  auto set = ops::change_goal_budget(place(), goal.id, {false, 1500});
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(set->token_budget, 1500);
  EXPECT_EQ(set->status, GoalStatus::kBudgetLimited);
}

TEST_F(OpsGoals, ABudgetChangeThatCannotBeIsRefusedAndTheGoalStaysAsItWas) {
  const Goal goal = add_goal(1000, 10);
  const Goal cancelled_goal = add_goal(1000);
  ASSERT_TRUE(ops::cancel_goal(place(), cancelled_goal.id).ok());
  struct Refused {
    std::string goal;
    ops::BudgetChange change;
    ErrorCode code;
  };
  const std::vector<Refused> refused{
      {goal.id, {true, kMaxTokenAmount}, ErrorCode::kUsage},  // beyond the largest budget
      {goal.id, {false, 0}, ErrorCode::kUsage},
      {goal.id, {false, -5}, ErrorCode::kUsage},
      {goal.id, {true, -5}, ErrorCode::kUsage},
      {goal.id, {true, std::numeric_limits<std::int64_t>::min()}, ErrorCode::kUsage},
      {goal.id, {false, kMaxTokenAmount + 1}, ErrorCode::kUsage},
      {cancelled_goal.id, {true, 10}, ErrorCode::kConflict},  // final
      {"no-such-goal", {true, 10}, ErrorCode::kNotFound},
  };
  const auto state = [&](const std::string& id) {
    const Goal read = stored(id);
    return std::tuple(read.token_budget, read.tokens_used, read.status, read.updated_at);
  };
  for (const Refused& r : refused) {
    const auto before = state(goal.id);
    const auto cancelled_before = state(cancelled_goal.id);
    auto changed = ops::change_goal_budget(place(), r.goal, r.change);
    ASSERT_FALSE(changed.ok()) << r.change.tokens;
    EXPECT_EQ(changed.error().code, r.code) << changed.error().message;
    EXPECT_EQ(state(goal.id), before);
    EXPECT_EQ(state(cancelled_goal.id), cancelled_before);
  }
}

TEST_F(OpsGoals, PauseResumeAndCancelMoveTheGoalThroughItsStates) {
  const Goal goal = add_goal(1000);
  auto paused = ops::pause_goal(place(), goal.id);
  ASSERT_TRUE(paused.ok()) << paused.error().message;
  EXPECT_EQ(paused->status, GoalStatus::kPaused);
  auto resumed = ops::resume_goal(place(), goal.id);
  ASSERT_TRUE(resumed.ok()) << resumed.error().message;
  EXPECT_EQ(resumed->status, GoalStatus::kActive);
  auto cancelled = ops::cancel_goal(place(), goal.id);
  ASSERT_TRUE(cancelled.ok()) << cancelled.error().message;
  EXPECT_EQ(cancelled->status, GoalStatus::kCancelled);
  auto again = ops::resume_goal(place(), goal.id);
  EXPECT_FALSE(again.ok());
  EXPECT_EQ(stored(goal.id).status, GoalStatus::kCancelled);
}

}  // namespace
}  // namespace orrery
