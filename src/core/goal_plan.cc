#include "core/goal_plan.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/text.h"

namespace orrery {
namespace {

// Depth-first over the dependencies without recursion (a plan may be a chain
// of kMaxPlanNodes nodes): a node met again while it is on the path closes a
// cycle, and is named.
Status check_acyclic(const std::vector<PlanNode>& nodes, const std::map<std::string, size_t>& at) {
  enum Mark { kNew, kOnPath, kDone };
  std::vector<Mark> marks(nodes.size(), kNew);
  for (size_t root = 0; root < nodes.size(); ++root) {
    if (marks[root] != kNew) continue;
    std::vector<std::pair<size_t, size_t>> path{{root, 0}};  // node, next dependency
    marks[root] = kOnPath;
    while (!path.empty()) {
      auto& [index, next] = path.back();
      if (next == nodes[index].depends_on.size()) {
        marks[index] = kDone;
        path.pop_back();
        continue;
      }
      const size_t dependency = at.at(nodes[index].depends_on[next++]);
      if (marks[dependency] == kOnPath) {
        return usage_error("the plan has a dependency cycle through node " + nodes[dependency].key);
      }
      if (marks[dependency] == kNew) {
        marks[dependency] = kOnPath;
        path.push_back({dependency, 0});
      }
    }
  }
  return Ok{};
}

}  // namespace

Status validate_plan_node(const PlanNode& node) {
  if (auto name = check_name(node.key, "node key", kMaxNodeKeyCharacters); !name) return name;
  auto objective = check_objective(node.objective);
  if (!objective) {
    return usage_error("node " + node.key + ": " + objective.error().message);
  }
  if (node.token_budget && *node.token_budget <= 0) {
    return usage_error("node " + node.key + ": a token budget must be positive, not " +
                       std::to_string(*node.token_budget));
  }
  return Ok{};
}

Status validate_plan(const std::vector<PlanNode>& nodes) {
  if (nodes.size() > kMaxPlanNodes) {
    return usage_error("the plan has " + std::to_string(nodes.size()) + " nodes; at most " +
                       std::to_string(kMaxPlanNodes) + " are accepted");
  }
  std::map<std::string, size_t> at;
  for (size_t index = 0; index < nodes.size(); ++index) {
    if (auto valid = validate_plan_node(nodes[index]); !valid) return valid;
    if (!at.emplace(nodes[index].key, index).second) {
      return usage_error("the plan has two nodes with the key " + nodes[index].key);
    }
  }
  for (const PlanNode& node : nodes) {
    std::set<std::string> seen;
    for (const std::string& dependency : node.depends_on) {
      if (!at.count(dependency)) {
        return usage_error("node " + node.key + " depends on the missing node " +
                           visible(dependency));
      }
      if (!seen.insert(dependency).second) {
        return usage_error("node " + node.key + " names the dependency " + dependency + " twice");
      }
    }
  }
  return check_acyclic(nodes, at);
}

bool node_within_budget(const PlanNode& node) {
  return !node.token_budget || node.tokens_used < *node.token_budget;
}

std::vector<std::string> ready_keys(const std::vector<PlanNode>& nodes) {
  std::map<std::string, NodeStatus> status;
  for (const PlanNode& node : nodes) status[node.key] = node.status;
  std::vector<const PlanNode*> ready;
  for (const PlanNode& node : nodes) {
    if (node.status != NodeStatus::kPending || !node_within_budget(node)) continue;
    const bool unblocked =
        std::all_of(node.depends_on.begin(), node.depends_on.end(), [&](const std::string& key) {
          auto found = status.find(key);
          return found != status.end() && found->second == NodeStatus::kComplete;
        });
    if (unblocked) ready.push_back(&node);
  }
  std::sort(ready.begin(), ready.end(), [](const PlanNode* a, const PlanNode* b) {
    if (a->priority != b->priority) return a->priority > b->priority;
    if (a->sequence != b->sequence) return a->sequence < b->sequence;
    return a->key < b->key;
  });
  std::vector<std::string> keys;
  for (const PlanNode* node : ready) keys.push_back(node->key);
  return keys;
}

PlanRollup plan_rollup(const std::vector<PlanNode>& nodes) {
  PlanRollup rollup;
  for (const PlanNode& node : nodes) {
    ++rollup.total;
    switch (node.status) {
      case NodeStatus::kPending:
        ++rollup.pending;
        break;
      case NodeStatus::kActive:
        ++rollup.active;
        break;
      case NodeStatus::kBlocked:
        ++rollup.blocked;
        break;
      case NodeStatus::kComplete:
        ++rollup.complete;
        break;
      case NodeStatus::kCancelled:
        ++rollup.cancelled;
        break;
    }
  }
  return rollup;
}

Result<std::vector<PlanNode>> merge_proposed_plan(const std::vector<PlanNode>& current,
                                                  const std::vector<PlanNode>& proposed) {
  std::vector<PlanNode> merged;
  for (const PlanNode& node : current) {
    if (node.status == NodeStatus::kComplete) merged.push_back(node);
  }
  const size_t kept = merged.size();
  for (const PlanNode& node : proposed) {
    const auto end = merged.begin() + std::ptrdiff_t(kept);
    if (std::any_of(merged.begin(), end,
                    [&](const PlanNode& done) { return done.key == node.key; }))
      continue;
    PlanNode next = node;
    next.status = NodeStatus::kPending;
    next.tokens_used = 0;
    if (const PlanNode* before = find_node(current, node.key)) {
      next.status = before->status;
      next.tokens_used = before->tokens_used;
    }
    merged.push_back(std::move(next));
  }
  for (size_t index = 0; index < merged.size(); ++index) merged[index].sequence = index;
  if (auto valid = validate_plan(merged); !valid) return valid.error();
  return merged;
}

const PlanNode* find_node(const std::vector<PlanNode>& nodes, const std::string& key) {
  for (const PlanNode& node : nodes) {
    if (node.key == key) return &node;
  }
  return nullptr;
}

PlanNode* find_node(std::vector<PlanNode>& nodes, const std::string& key) {
  for (PlanNode& node : nodes) {
    if (node.key == key) return &node;
  }
  return nullptr;
}

}  // namespace orrery
