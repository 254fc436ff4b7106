// Handing a goal to the work that is its turn, and taking its update back
// (docs/goals.md, "A turn"). Before the target starts: ORRERY_GOAL names a
// file with the goal and its plan (core/goal_json.h), ORRERY_GOAL_UPDATE a
// path where the target may write its update (any stale one removed), and
// an agent's prompt gets the goal's section (core/goal_prompt.h). After it
// ends: the update is the file, if written, else the last fenced json block
// with a "goal" key of an agent's final message; it is scrubbed like any
// output and travels in the outcome, which the store settles as the turn
// in the finish's own transaction.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/goal.h"
#include "core/loop.h"
#include "core/result.h"
#include "core/scrubber.h"
#include "exec/env.h"
#include "store/claim_ledger.h"

namespace orrery {

struct GoalHandoff {
  std::string goal_id;
  std::string node;            // the node the turn is given (drive ready), or empty
  std::string document;        // the goal's JSON
  std::string prompt_section;  // appended to an agent's prompt (empty under drive off)
  std::string document_path;   // ORRERY_GOAL
  std::string update_path;     // ORRERY_GOAL_UPDATE
};

GoalHandoff goal_handoff(const Goal& goal, const std::string& dir, int attempt);

// Writes the goal's file and removes a stale update; the variables to add
// to the target's environment.
Result<std::vector<EnvVar>> hand_goal_over(Env& env, const GoalHandoff& handoff);

// The update the target left, scrubbed, into the outcome with the goal and
// its node; a file that cannot be read is an update that fails, naming why.
void take_goal_update(const GoalHandoff& handoff, const Target& target, const Scrubber& scrubber,
                      RunOutcome& outcome);

}  // namespace orrery
