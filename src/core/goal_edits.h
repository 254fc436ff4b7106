// The changes a person makes to a goal (docs/goals.md, "Commands"): pause,
// resume, cancel, a new plan, a node's status. Pure: each takes the goal as
// read and returns it as it should be stored (updated_at = now), or an error
// naming the goal and why — a conflict when its status does not allow it
// (a final goal allows none: check_goal_transition).
//
// Rules: pause needs an open goal (active, blocked or usage_limited); resume
// needs a paused, blocked or usage_limited goal and clears its count of
// turns without progress; cancel needs a goal that is not final; a plan
// (merge_proposed_plan) or a node's status needs a goal that is not final.
#pragma once

#include <string>
#include <vector>

#include "core/goal.h"
#include "core/result.h"

namespace orrery {

Result<Goal> pause_goal(Goal goal, TimeMs now);
Result<Goal> resume_goal(Goal goal, TimeMs now);
Result<Goal> cancel_goal(Goal goal, TimeMs now);
Result<Goal> set_goal_plan(Goal goal, const std::vector<PlanNode>& plan, TimeMs now);
Result<Goal> set_node_status(Goal goal, const std::string& key, NodeStatus status, TimeMs now);

// Whether a goal in this status keeps its target from running on: a loop
// whose goal becomes paused, blocked, budget_limited or complete is paused.
bool stops_target(GoalStatus status);

}  // namespace orrery
