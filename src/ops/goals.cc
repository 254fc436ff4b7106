#include "ops/goals.h"

#include "core/goal_edits.h"
#include "core/token_amount.h"
#include "exec/wake.h"

namespace orrery::ops {
namespace {

Result<Goal> change(const GoalPlace& place, const std::string& text, const GoalEdit& edit) {
  auto goal = place.goals.resolve_goal(text);
  if (!goal) return goal.error();
  auto changed = place.goals.change_goal(goal->id, edit, place.now);
  if (!changed) return changed.error();
  notify_daemon(place.home);  // a loop it paused or resumed is planned anew
  return changed;
}

}  // namespace

Result<Goal> pause_goal(const GoalPlace& place, const std::string& goal) {
  return change(place, goal,
                [&](Goal read) { return orrery::pause_goal(std::move(read), place.now); });
}

Result<Goal> resume_goal(const GoalPlace& place, const std::string& goal) {
  return change(place, goal,
                [&](Goal read) { return orrery::resume_goal(std::move(read), place.now); });
}

Result<Goal> cancel_goal(const GoalPlace& place, const std::string& goal) {
  return change(place, goal,
                [&](Goal read) { return orrery::cancel_goal(std::move(read), place.now); });
}

Result<Goal> change_goal_budget(const GoalPlace& place, const std::string& goal,
                                const BudgetChange& wanted) {
  if (wanted.tokens < 0 || wanted.tokens > kMaxTokenAmount) {
    return usage_error("a token amount is 0 to " + std::to_string(kMaxTokenAmount) + ", not " +
                       std::to_string(wanted.tokens));
  }
  return change(place, goal, [&](Goal read) -> Result<Goal> {
    std::int64_t budget = wanted.tokens;
    if (wanted.adding) {
      const std::int64_t base = read.token_budget.value_or(read.tokens_used);
      if (base > kMaxTokenAmount - budget) {
        return usage_error("--add: the budget would exceed " + std::to_string(kMaxTokenAmount) +
                           " tokens");
      }
      budget += base;
    }
    return change_budget(std::move(read), budget, place.now);
  });
}

Result<Goal> replace_goal_plan(const GoalPlace& place, const std::string& goal,
                               const std::vector<PlanNode>& plan) {
  return change(place, goal,
                [&](Goal read) { return set_goal_plan(std::move(read), plan, place.now); });
}

Result<Goal> set_goal_node_status(const GoalPlace& place, const std::string& goal,
                                  const std::string& node, NodeStatus status) {
  return change(place, goal, [&](Goal read) {
    return set_node_status(std::move(read), node, status, place.now);
  });
}

}  // namespace orrery::ops
