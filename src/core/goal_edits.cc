#include "core/goal_edits.h"

#include "core/goal_plan.h"

namespace orrery {
namespace {

bool is_open(GoalStatus status) {
  return status == GoalStatus::kActive || status == GoalStatus::kBlocked ||
         status == GoalStatus::kUsageLimited;
}

Error not_allowed(const Goal& goal, const std::string& action) {
  return conflict_error("cannot " + action + " goal " + goal.id + ": it is " +
                        goal_status_name(goal.status));
}

Status check_not_final(const Goal& goal, const char* action) {
  if (!is_terminal(goal.status)) return Ok{};
  std::string message = std::string("cannot ") + action + ": goal " + goal.id + " is " +
                        goal_status_name(goal.status) + ", which is final";
  if (goal.status == GoalStatus::kBudgetLimited) {
    message += " (raising its budget with `orrery goal budget " + goal.id +
               " --add TOKENS` makes it active again)";
  }
  return conflict_error(message);
}

}  // namespace

bool stops_target(GoalStatus status) {
  return status == GoalStatus::kPaused || status == GoalStatus::kBlocked ||
         status == GoalStatus::kBudgetLimited || status == GoalStatus::kComplete;
}

Result<Goal> pause_goal(Goal goal, TimeMs now) {
  if (auto final_goal = check_not_final(goal, "pause it"); !final_goal) return final_goal.error();
  if (!is_open(goal.status)) return not_allowed(goal, "pause");
  goal.status = GoalStatus::kPaused;
  goal.status_reason = "paused by `orrery goal pause`";
  goal.limited_until.reset();
  goal.updated_at = now;
  return goal;
}

Result<Goal> resume_goal(Goal goal, TimeMs now) {
  if (auto final_goal = check_not_final(goal, "resume it"); !final_goal) return final_goal.error();
  if (goal.status == GoalStatus::kActive) return not_allowed(goal, "resume");
  goal.status = GoalStatus::kActive;
  goal.status_reason = "resumed by `orrery goal resume`";
  goal.turns_without_progress = 0;
  goal.limited_until.reset();
  goal.updated_at = now;
  return goal;
}

Result<Goal> cancel_goal(Goal goal, TimeMs now) {
  if (auto final_goal = check_not_final(goal, "cancel it"); !final_goal) return final_goal.error();
  goal.status = GoalStatus::kCancelled;
  goal.status_reason = "cancelled by `orrery goal cancel`";
  goal.limited_until.reset();
  goal.updated_at = now;
  return goal;
}

Result<Goal> set_goal_plan(Goal goal, const std::vector<PlanNode>& plan, TimeMs now) {
  if (auto final_goal = check_not_final(goal, "change its plan"); !final_goal)
    return final_goal.error();
  auto merged = merge_proposed_plan(goal.plan, plan);
  if (!merged) return merged.error();
  goal.plan = std::move(*merged);
  goal.updated_at = now;
  return goal;
}

Result<Goal> set_node_status(Goal goal, const std::string& key, NodeStatus status, TimeMs now) {
  if (auto final_goal = check_not_final(goal, "change a node"); !final_goal)
    return final_goal.error();
  PlanNode* node = find_node(goal.plan, key);
  if (node == nullptr) {
    return not_found_error("goal " + goal.id + " has no node with the key '" + key + "'");
  }
  node->status = status;
  goal.updated_at = now;
  return goal;
}

}  // namespace orrery
