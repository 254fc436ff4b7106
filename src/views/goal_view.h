// The JSON documents of a goal and of its turns (docs/cli.md, "Goals"): one
// source for `goal show --json`, `goal ls --json`, `goal turns --json` and the
// ORRERY_GOAL file a turn's target reads. Fields may be added, never renamed.
#pragma once

#include <nlohmann/json.hpp>

#include "core/goal.h"
#include "core/goal_turn.h"

namespace orrery {

// {id, objective, status, status_reason, target {type, loop_id, workflow_id,
// workflow_name, step_id}, drive, token_budget, tokens_used, tokens_left,
// max_turns, turns, stall_turns, turns_without_progress, limited_until,
// plan [{key, objective, status, depends_on, priority, token_budget,
// tokens_used, sequence, ready}], ready [keys], rollup {total, pending,
// active, blocked, complete, cancelled}, last_summary, last_update_error,
// created_at, updated_at}.
nlohmann::json goal_json(const Goal& goal);

// {turn, goal_id, spent, loop_run_id, workflow_run_id, step_id, dispatch_id,
// node_key, run_status, status, tokens_used, evidence, summary, update,
// update_error, created_at}; evidence is the JSON it was (null when
// none), update the text the target left (null when none).
nlohmann::json turn_json(const GoalTurn& turn);

}  // namespace orrery
