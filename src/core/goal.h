// Goal: an objective with a token budget that runs of one target pursue turn
// by turn, and the plan of nodes they revise (docs/goals.md). The record the
// store keeps; creating one from user input is validate_new_goal's.
//
// Invariants: the objective is 1 to kMaxObjectiveCharacters characters of
// valid UTF-8; budgets and limits are positive; budget_limited, complete and
// cancelled are terminal: a terminal goal takes no other status, except that
// a budget_limited goal whose budget is raised above what it used becomes
// active again (check_goal_transition).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/time.h"

namespace orrery {

inline constexpr size_t kMaxObjectiveCharacters = 4000;
inline constexpr int kDefaultStallTurns = 3;

enum class GoalStatus {
  kActive,
  kPaused,
  kBlocked,
  kUsageLimited,
  kBudgetLimited,
  kComplete,
  kCancelled
};
enum class NodeStatus { kPending, kActive, kBlocked, kComplete, kCancelled };
// How a goal drives its target (docs/goals.md, "Drive modes"): `ready` names
// the first ready node to work on, `agent` lets the agent choose, `off`
// appends nothing to an agent's prompt (accounting and stops still apply).
enum class DriveMode { kReady, kAgent, kOff };
enum class GoalTargetType { kLoop, kWorkflow, kStep };

const char* goal_status_name(GoalStatus status);
Result<GoalStatus> parse_goal_status(std::string_view text);
const char* node_status_name(NodeStatus status);
Result<NodeStatus> parse_node_status(std::string_view text);
const char* drive_mode_name(DriveMode mode);
Result<DriveMode> parse_drive_mode(std::string_view text);
const char* goal_target_type_name(GoalTargetType type);

bool is_terminal(GoalStatus status);

// What a goal is attached to: a loop (each run), a workflow by name (each
// run of any version) or one step of a workflow (each attempt).
struct GoalTarget {
  GoalTargetType type = GoalTargetType::kLoop;
  std::string loop_id;        // kLoop
  std::string workflow_id;    // kWorkflow, kStep: the version named at creation
  std::string workflow_name;  // kWorkflow, kStep: what runs are matched by
  std::string step_id;        // kStep
  friend bool operator==(const GoalTarget&, const GoalTarget&) = default;
};

// The one key of a target, for "one open goal per target": loop:ID,
// workflow:NAME or step:NAME/STEP.
std::string goal_target_key(const GoalTarget& target);

struct PlanNode {
  std::string key;
  std::string objective;
  NodeStatus status = NodeStatus::kPending;
  std::vector<std::string> depends_on;
  std::int64_t priority = 0;
  std::optional<std::int64_t> token_budget;
  std::int64_t tokens_used = 0;
  std::int64_t sequence = 0;  // its place in the plan, from 0
  friend bool operator==(const PlanNode&, const PlanNode&) = default;
};

struct Goal {
  std::string id;
  std::string objective;
  GoalStatus status = GoalStatus::kActive;
  std::string status_reason;
  GoalTarget target;
  DriveMode drive = DriveMode::kReady;
  std::optional<std::int64_t> token_budget;  // empty: unlimited
  std::int64_t tokens_used = 0;
  std::optional<int> max_turns;
  int turns = 0;  // turns spent (a usage-limited one is not)
  int stall_turns = kDefaultStallTurns;
  int turns_without_progress = 0;
  std::optional<TimeMs> limited_until;  // while usage_limited: the cooldown's end
  std::string last_evidence_json;       // the newest evidence a turn brought
  std::string last_summary;             // the newest summary a turn brought
  std::string last_update_error;        // why the last update was refused (empty: it was not)
  std::vector<PlanNode> plan;
  TimeMs created_at = 0;
  TimeMs updated_at = 0;
  std::int64_t version = 1;  // bumped by every write
};

// A status change asked for: allowed, or a conflict naming the goal, its
// status and why (a terminal goal refuses every change; only a raised budget
// reopens a budget_limited one, see change_budget).
Status check_goal_transition(const Goal& goal, GoalStatus to);

// The objective as given: trimmed, 1 to 4,000 characters, valid UTF-8.
Result<std::string> check_objective(std::string_view text);

// A new budget for the goal (`goal budget --add/--set`): a budget_limited
// goal whose new budget exceeds what it used becomes active again; a budget
// at or below what was used makes an open goal budget_limited. Refused on
// complete and cancelled goals.
Result<Goal> change_budget(Goal goal, std::int64_t budget, TimeMs now);

// Tokens left of the budget (empty: unlimited); never negative.
std::optional<std::int64_t> tokens_left(const Goal& goal);

}  // namespace orrery
