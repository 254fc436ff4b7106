// A goal's turn (docs/goals.md, "A turn"): what one run of its target does to
// the goal. Pure: the store applies it in the run's own finish transaction,
// so that a turn is counted once or not at all.
//
// Rules, in order, after the run's tokens are added to the goal and to the
// node worked on (the update's node, else the node the turn was given):
// - the update is applied whole or not at all: an invalid one (bad JSON, a
//   bad field, a plan with a cycle or a missing node, an unknown node) is
//   recorded on the turn with its error and changes nothing;
// - a node over its own budget is blocked;
// - only an open goal (active, or usage_limited) takes an update and changes
//   status; a goal paused, blocked or final meanwhile keeps its plan and
//   status (its tokens still count; the update is recorded, refused);
// - an update saying complete, with no node pending or active (or with
//   "force", which cancels them) completes the goal — the work is done, so
//   this wins over every limit below; one saying complete with nodes left is
//   recorded as an update error;
// - the budget reached: budget_limited;
// - the run stopped by a provider's usage limit: usage_limited until the
//   cooldown ends, and the turn is not spent;
// - a run that failed before any of its work started (no process ran, no
//   token was used, no usage limit was met: a worktree that could not be made, a command that could
//   not be launched) is recorded, saying so, but is not a turn: nothing is
//   spent and the goal's status does not change;
// - otherwise the turn is spent: max_turns reached, or stall_turns turns in
//   a row without progress (no node status change, no plan change, no new
//   evidence): blocked; an update saying blocked: blocked.
// A goal that is then blocked, budget_limited or complete stops its target:
// the settlement says so, and the store pauses the loop.
#pragma once

#include <optional>
#include <string>

#include "core/goal.h"
#include "core/run.h"

namespace orrery {

struct TurnInput {
  RunStatus run_status = RunStatus::kSucceeded;
  std::int64_t tokens = 0;  // input and output tokens of the run
  bool usage_limited = false;
  std::optional<TimeMs> limited_until;  // the provider's cooldown end
  std::string given_node;               // the node the turn was given (may be empty)
  std::optional<std::string> update;    // the update's text, if the target left one
  std::string update_error;             // why the update could not be read, if it could not
  // Whether any process of the work started (a run that failed before it
  // did, with no tokens, is recorded but not spent).
  bool work_started = true;
  std::string run_error;  // why the run failed, for the record of one that never started
  TimeMs now = 0;
};

// One recorded turn (the JSON shape of docs/cli.md, "goal turns").
struct GoalTurn {
  std::string goal_id;
  int turn = 0;  // the spent turn it is, or would have been (a usage-limited one)
  bool spent = true;
  std::string loop_run_id;
  std::string workflow_run_id;
  std::string step_id;
  std::string dispatch_id;  // a step attempt's
  std::string node_key;
  RunStatus run_status = RunStatus::kSucceeded;
  GoalStatus status = GoalStatus::kActive;  // the goal's, after the turn
  std::int64_t tokens_used = 0;
  std::string evidence_json;
  std::string summary;
  std::string update_json;  // the update as the target left it
  std::string update_error;
  TimeMs created_at = 0;
};

struct TurnSettlement {
  Goal goal;
  GoalTurn turn;
  bool stops_target = false;  // the goal became blocked, budget_limited or complete
};

TurnSettlement settle_turn(const Goal& goal, const TurnInput& input);

// An open goal whose usage-limit cooldown has ended is active again.
bool cooldown_over(const Goal& goal, TimeMs now);

}  // namespace orrery
