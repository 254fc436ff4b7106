// Handing a goal to the work that is its turn, and taking its update back
// (docs/goals.md, "A turn"). Before the target starts: ORRERY_GOAL names a
// file with the goal and its plan (views/goal_view.h), ORRERY_GOAL_UPDATE a
// path where the target may write its update (any stale one removed), and
// an agent's prompt gets the goal's section (core/goal_prompt.h). After it
// ends: the update is the file, if written, else the last fenced json block
// with a "goal" key of an agent's final message; it is scrubbed like any
// output and travels in the outcome, which the store settles as the turn
// in the finish's own transaction. A step of a workflow run whose turn is
// the whole run reads its update the same way: an agent step that left the
// run's shared update file as it found it, but ended its final message
// with a goal block, writes that block (scrubbed) to the file, so the run's
// update is its steps' last word either way.
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
  // Whether this work is the turn: a step of a workflow whose goal it is not
  // its own works towards the goal, but the turn is the whole workflow run,
  // whose files (in the run's directory) every step shares.
  bool is_turn = true;
  // A step's: the run's shared update file when the step started (empty:
  // there was none), to tell whether the step wrote it.
  std::optional<std::string> shared_update_at_start;
};

GoalHandoff goal_handoff(const Goal& goal, const std::string& dir, int attempt);
// A workflow goal's handoff to a step of `run_dir`'s run (it notes the
// run's update file as it is now).
GoalHandoff workflow_goal_handoff(const Goal& goal, const std::string& run_dir);

// Writes the goal's file and removes a stale update; the variables to add
// to the target's environment.
Result<std::vector<EnvVar>> hand_goal_over(Env& env, const GoalHandoff& handoff);

// The update the target left, scrubbed, into the outcome with the goal and
// its node; a file that cannot be read is an update that fails, naming why.
// A workflow run's step: its final message's update, if it wrote no file,
// into the run's shared file (a failure to write it is the step's error).
void take_goal_update(Env& env, const GoalHandoff& handoff, const Target& target,
                      const Scrubber& scrubber, RunOutcome& outcome);

// The update a finished workflow run's steps left for its workflow's goal
// (the file of workflow_goal_handoff), scrubbed in place with the run's
// scrubber, or why it could not be read.
void take_workflow_goal_update(Env& env, const std::string& run_dir, const Scrubber& scrubber,
                               std::optional<std::string>& update, std::string& error);

}  // namespace orrery
