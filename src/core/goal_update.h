// A turn's goal update (docs/goals.md, "The update"): what the target says
// about the goal after its run, as a JSON object
//   {"goal": {"status": "active|blocked|complete", "plan": [nodes...],
//             "node": KEY, "node_status": STATUS, "evidence": {...},
//             "summary": TEXT, "force": true}}
// written to ORRERY_GOAL_UPDATE or left in an agent's final message as the
// last fenced ```json block with a "goal" key. Pure.
//
// The text is untrusted: at most kMaxGoalUpdateBytes, nesting depth and
// duplicate keys refused before anything is built (core/spec_tree.h), valid
// UTF-8, every field checked and unknown fields refused; an error names the
// field and the value. Plan nodes give key, objective, depends_on, priority
// and token_budget (a count or an amount such as 50k), never a status. An
// update's plan is a proposal: each node is checked here, the plan as a whole
// once merged into the goal's (merge_proposed_plan), so that its dependencies
// may name complete nodes it leaves out. A plan document is checked whole.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/goal.h"
#include "core/result.h"

namespace orrery {

inline constexpr size_t kMaxGoalUpdateBytes = 256 * 1024;
inline constexpr size_t kMaxSummaryCharacters = 4000;

struct GoalUpdate {
  std::optional<GoalStatus> status;  // active, blocked or complete
  std::optional<std::vector<PlanNode>> plan;
  std::string node;  // empty: none named
  std::optional<NodeStatus> node_status;
  std::string evidence_json;  // compact JSON; empty: none
  std::string summary;
  bool force = false;  // complete even with nodes left (they are cancelled)
};

Result<GoalUpdate> parse_goal_update(std::string_view text);

// The update an agent left in its final message: the text of the last
// fenced ```json block that names "goal" and is either a JSON object with a
// "goal" key or not valid JSON (then its error is recorded: an earlier block
// is not applied in its place); blocks whose valid JSON has no "goal" key are
// passed over; nothing when no block qualifies.
std::optional<std::string> goal_update_in_message(std::string_view message);

// A plan file of `goal create --plan` and `goal plan --set`: a JSON or YAML
// list of nodes (or an object whose only key, "plan", is that list). A
// proposal, as an update's plan is: its nodes checked one by one; the plan
// is validated once merged with the goal's (merge_proposed_plan).
Result<std::vector<PlanNode>> parse_plan_document(std::string_view text);

}  // namespace orrery
