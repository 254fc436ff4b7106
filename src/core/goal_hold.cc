#include "core/goal_hold.h"

#include "core/goal_turn.h"
#include "core/token_amount.h"

namespace orrery {

bool goal_takes_runs(const Goal& goal, TimeMs now) {
  return goal.status == GoalStatus::kActive || cooldown_over(goal, now);
}

std::string goal_hold(const Goal& goal, TimeMs now) {
  if (goal_takes_runs(goal, now)) return "";
  const std::string name = "goal " + goal.id;
  switch (goal.status) {
    case GoalStatus::kBudgetLimited:
      return name + " budget " + format_count(goal.tokens_used) + "/" +
             format_count(goal.token_budget.value_or(goal.tokens_used)) + " tokens";
    case GoalStatus::kPaused:
      return name + " paused";
    case GoalStatus::kBlocked:
      return name + " blocked" + (goal.status_reason.empty() ? "" : ": " + goal.status_reason);
    case GoalStatus::kUsageLimited: {
      std::string hold = name + " usage limited";
      if (goal.limited_until) hold.append(" until ").append(format_time(*goal.limited_until));
      return hold;
    }
    case GoalStatus::kActive:
    case GoalStatus::kComplete:
    case GoalStatus::kCancelled:
      break;
  }
  return "";
}

std::string goal_release_hint(const Goal& goal) {
  switch (goal.status) {
    case GoalStatus::kBudgetLimited:
      return "raise its budget (orrery goal budget " + goal.id +
             " --add TOKENS) or create a new goal for the workflow";
    case GoalStatus::kPaused:
    case GoalStatus::kBlocked:
      return "resume it (orrery goal resume " + goal.id + ") or cancel it (orrery goal cancel " +
             goal.id + ")";
    case GoalStatus::kUsageLimited:
      return "wait for the cooldown, or cancel the goal (orrery goal cancel " + goal.id + ")";
    default:
      return "";
  }
}

}  // namespace orrery
