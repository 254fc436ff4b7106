// Changing a goal as a person or an agent asks (docs/goals.md, "Commands"):
// pause, resume, cancel, its token budget raised or set, its plan replaced
// or a node of it marked. Each change is
// one guarded write of the goal (GoalBook::change_goal); the daemon is told,
// since a loop the goal paused or resumed is planned anew.
//
// Invariants: a goal named but not found, or a change its state refuses
// (core/goal_edits.h), is an error and nothing is written; a budget never
// exceeds kMaxTokenAmount.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/goal.h"
#include "core/result.h"
#include "store/goal_book.h"

namespace orrery::ops {

// Where a change is made: the goals, the data directory whose daemon is
// told, and the instant of the change.
struct GoalPlace {
  GoalBook& goals;
  std::string home;
  TimeMs now = 0;
};

Result<Goal> pause_goal(const GoalPlace& place, const std::string& goal);
Result<Goal> resume_goal(const GoalPlace& place, const std::string& goal);
Result<Goal> cancel_goal(const GoalPlace& place, const std::string& goal);

struct BudgetChange {
  bool adding = false;      // add `tokens` to the budget (to the tokens used, with none)
  std::int64_t tokens = 0;  // the amount, as parsed (core/token_amount.h)
};

Result<Goal> change_goal_budget(const GoalPlace& place, const std::string& goal,
                                const BudgetChange& change);

// The goal's plan replaced by a proposed one (core/goal_plan.h), or one
// node's status set.
Result<Goal> replace_goal_plan(const GoalPlace& place, const std::string& goal,
                               const std::vector<PlanNode>& plan);
Result<Goal> set_goal_node_status(const GoalPlace& place, const std::string& goal,
                                  const std::string& node, NodeStatus status);

}  // namespace orrery::ops
