// A goal's plan (docs/goals.md, "The plan"): a DAG of nodes. Pure.
//
// Rules: keys are unique names (core/text.h, at most kMaxNodeKeyCharacters);
// every dependency is a key of the plan; there is no cycle; objectives are 1
// to 4,000 characters; budgets positive; at most kMaxPlanNodes nodes. Errors
// name the node: the missing dependency, or a node on the cycle.
//
// A node is ready when it is pending, within its own budget and every node it
// depends on is complete; ready nodes are ordered by priority (highest
// first), then sequence, then key.
#pragma once

#include <string>
#include <vector>

#include "core/goal.h"
#include "core/result.h"

namespace orrery {

inline constexpr size_t kMaxNodeKeyCharacters = 100;
inline constexpr size_t kMaxPlanNodes = 500;

Status validate_plan(const std::vector<PlanNode>& nodes);
// One node's own fields (key, objective, budget), without its dependencies:
// what a proposal is checked for before it is merged (merge_proposed_plan).
Status validate_plan_node(const PlanNode& node);

bool node_within_budget(const PlanNode& node);
std::vector<std::string> ready_keys(const std::vector<PlanNode>& nodes);

struct PlanRollup {
  int total = 0;
  int pending = 0;
  int active = 0;
  int blocked = 0;
  int complete = 0;
  int cancelled = 0;
};
PlanRollup plan_rollup(const std::vector<PlanNode>& nodes);

// A proposed plan merged into the current one: nodes already complete stay
// as they are (a proposal's node of the same key is ignored); every other
// node is replaced by the proposal. A proposal says what to do, not how far
// it got: a proposed node keeps the status and the tokens of the current
// node of its key, and a new one is pending with none used. Sequences are
// renumbered: complete nodes first, then the proposal's in its order. The
// merged plan is validated; an invalid one is refused, naming why.
Result<std::vector<PlanNode>> merge_proposed_plan(const std::vector<PlanNode>& current,
                                                  const std::vector<PlanNode>& proposed);

// The node of `key`, or nullptr.
const PlanNode* find_node(const std::vector<PlanNode>& nodes, const std::string& key);
PlanNode* find_node(std::vector<PlanNode>& nodes, const std::string& key);

}  // namespace orrery
