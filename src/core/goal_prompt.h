// The section a goal appends to an agent's prompt (docs/goals.md, "The
// prompt section", versioned: `goal prompt v1`): the objective, the budget
// and turns left, the plan with statuses, the node to work on (drive ready:
// the first ready node; agent: the agent chooses), why the last update was
// refused, and how to reply. Drive off appends nothing. Pure.
#pragma once

#include <string>

#include "core/goal.h"

namespace orrery {

inline constexpr const char* kGoalPromptVersion = "goal prompt v1";

// The node a turn is given: the first ready node under drive `ready`, else
// none (empty).
std::string node_to_work_on(const Goal& goal);

// The section, starting with a blank line; empty under drive off.
std::string goal_prompt_section(const Goal& goal);

}  // namespace orrery
