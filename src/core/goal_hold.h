// What a workflow's goal does to new runs of its workflow (docs/goals.md,
// "A goal over a fleet"): while the goal is active, every new run is given
// it and counts towards it; while it is stopped short of its end — paused,
// blocked, budget_limited, or usage_limited with its cooldown still on — no
// new run starts: admission holds the items of every route that runs the
// workflow, and publishing a run by hand is refused, both naming the goal
// and what stops it. A complete or cancelled goal holds nothing (its work is
// done or given up); a newer goal on the target replaces an older one.
//
// Pure: the store reads the target's newest goal and asks these.
#pragma once

#include <string>

#include "core/goal.h"
#include "core/time.h"

namespace orrery {

// Whether a run started now is given the goal (and is one of its turns):
// active, or usage_limited with its cooldown over.
bool goal_takes_runs(const Goal& goal, TimeMs now);

// What holds new runs of the goal's target, e.g. "goal ID budget 6,000/6,000
// tokens", "goal ID paused", "goal ID blocked: no progress in 3 turns",
// "goal ID usage limited until T"; empty when the goal holds nothing.
std::string goal_hold(const Goal& goal, TimeMs now);

// The commands that let held runs go on, for an error a person reads.
std::string goal_release_hint(const Goal& goal);

}  // namespace orrery
