#include "core/goal_update.h"

#include <nlohmann/json.hpp>
#include <set>

#include "core/exact_json.h"
#include "core/goal_plan.h"
#include "core/spec_tree.h"
#include "core/text.h"
#include "core/token_amount.h"

namespace orrery {
namespace {

using nlohmann::json;

std::string shown(const json& value) {
  std::string text = write_json(value);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return visible(text);
}

Status refuse_unknown(const json& object, const std::set<std::string>& known,
                      const std::string& where) {
  for (const auto& [key, value] : object.items()) {
    if (known.count(key)) continue;
    std::string accepted;
    for (const std::string& name : known) accepted += (accepted.empty() ? "" : ", ") + name;
    return usage_error(where + " has the unknown field '" + visible(key) +
                       "'; accepted: " + accepted);
  }
  return Ok{};
}

Result<std::string> text_field(const json& value, const std::string& field) {
  if (!value.is_string()) return usage_error(field + " must be a string, not " + shown(value));
  return value.get<std::string>();
}

Result<std::int64_t> integer_field(const json& value, const std::string& field) {
  if (value.is_number_integer() && !value.is_number_unsigned()) return value.get<std::int64_t>();
  if (value.is_number_unsigned() && value.get<std::uint64_t>() <= std::uint64_t(INT64_MAX)) {
    return std::int64_t(value.get<std::uint64_t>());
  }
  if (value.is_number_unsigned() || is_whole_number_text(kept_number_text(value))) {
    return usage_error(field + " " + shown(value) + " is out of range: at most " +
                       std::to_string(INT64_MAX));
  }
  return usage_error(field + " must be a whole number, not " + shown(value));
}

Result<std::int64_t> budget_field(const json& value, const std::string& field) {
  if (value.is_string()) return parse_token_amount(value.get<std::string>(), field);
  auto number = integer_field(value, field);
  if (!number) return number.error();
  if (*number <= 0 || *number > kMaxTokenAmount) {
    return usage_error(field + " must be from 1 to " + std::to_string(kMaxTokenAmount) +
                       " tokens, not " + std::to_string(*number));
  }
  return *number;
}

Result<PlanNode> node_from_json(const json& value, const std::string& where) {
  if (!value.is_object()) return usage_error(where + " must be an object, not " + shown(value));
  if (auto known = refuse_unknown(
          value, {"key", "objective", "depends_on", "priority", "token_budget"}, where);
      !known)
    return known.error();
  PlanNode node;
  if (!value.contains("key")) return usage_error(where + " has no key");
  auto key = text_field(value["key"], where + ".key");
  if (!key) return key.error();
  node.key = *key;
  const std::string named = where + " (" + visible(node.key) + ")";
  if (!value.contains("objective")) return usage_error(named + " has no objective");
  auto objective = text_field(value["objective"], named + ".objective");
  if (!objective) return objective.error();
  node.objective = std::string(trim(*objective));
  if (value.contains("depends_on")) {
    const json& list = value["depends_on"];
    if (!list.is_array()) {
      return usage_error(named + ".depends_on must be a list of keys, not " + shown(list));
    }
    for (const json& dependency : list) {
      auto text = text_field(dependency, named + ".depends_on[]");
      if (!text) return text.error();
      node.depends_on.push_back(*text);
    }
  }
  if (value.contains("priority")) {
    auto priority = integer_field(value["priority"], named + ".priority");
    if (!priority) return priority.error();
    node.priority = *priority;
  }
  if (value.contains("token_budget") && !value["token_budget"].is_null()) {
    auto budget = budget_field(value["token_budget"], named + ".token_budget");
    if (!budget) return budget.error();
    node.token_budget = *budget;
  }
  return node;
}

// A proposed plan (an update's, a plan file's): each node checked alone, its
// dependencies once it is merged with the goal's plan (merge_proposed_plan,
// the one validator of a whole plan), since they may name complete nodes
// it leaves out.
Result<std::vector<PlanNode>> nodes_from_json(const json& list, const std::string& where) {
  if (!list.is_array()) return usage_error(where + " must be a list of nodes, not " + shown(list));
  if (list.size() > kMaxPlanNodes) {
    return usage_error(where + " has " + std::to_string(list.size()) + " nodes; at most " +
                       std::to_string(kMaxPlanNodes) + " are accepted");
  }
  std::vector<PlanNode> nodes;
  for (size_t index = 0; index < list.size(); ++index) {
    auto node = node_from_json(list[index], where + "[" + std::to_string(index) + "]");
    if (!node) return node.error();
    node->sequence = std::int64_t(index);
    if (auto valid = validate_plan_node(*node); !valid) return valid.error();
    nodes.push_back(std::move(*node));
  }
  return nodes;
}

Result<GoalStatus> update_status(const json& value) {
  auto text = text_field(value, "goal.status");
  if (!text) return text.error();
  auto status = parse_goal_status(*text);
  if (!status || (*status != GoalStatus::kActive && *status != GoalStatus::kBlocked &&
                  *status != GoalStatus::kComplete)) {
    return usage_error("goal.status must be active, blocked or complete, not '" + visible(*text) +
                       "'");
  }
  return *status;
}

Status read_fields(const json& goal, GoalUpdate& update) {
  if (goal.contains("status")) {
    auto status = update_status(goal["status"]);
    if (!status) return status.error();
    update.status = *status;
  }
  if (goal.contains("plan")) {
    auto plan = nodes_from_json(goal["plan"], "goal.plan");
    if (!plan) return plan.error();
    update.plan = std::move(*plan);
  }
  if (goal.contains("node") && !goal["node"].is_null()) {
    auto node = text_field(goal["node"], "goal.node");
    if (!node) return node.error();
    update.node = *node;
  }
  if (goal.contains("node_status")) {
    auto text = text_field(goal["node_status"], "goal.node_status");
    if (!text) return text.error();
    auto status = parse_node_status(*text);
    if (!status) return usage_error("goal.node_status: " + status.error().message);
    if (update.node.empty()) return usage_error("goal.node_status needs goal.node, the node's key");
    update.node_status = *status;
  }
  if (goal.contains("evidence") && !goal["evidence"].is_null()) {
    update.evidence_json = write_json(goal["evidence"]);
  }
  if (goal.contains("summary")) {
    auto summary = text_field(goal["summary"], "goal.summary");
    if (!summary) return summary.error();
    if (count_code_points(*summary) > kMaxSummaryCharacters) {
      return usage_error("goal.summary has more than " + std::to_string(kMaxSummaryCharacters) +
                         " characters");
    }
    update.summary = std::string(trim(*summary));
  }
  if (goal.contains("force")) {
    if (!goal["force"].is_boolean()) {
      return usage_error("goal.force must be true or false, not " + shown(goal["force"]));
    }
    update.force = goal["force"].get<bool>();
  }
  return Ok{};
}

// The fenced blocks of a message whose info string is json: their bodies.
std::vector<std::string_view> json_fences(std::string_view message) {
  std::vector<std::string_view> blocks;
  size_t at = 0;
  std::optional<size_t> body;
  while (at <= message.size()) {
    size_t end = message.find('\n', at);
    if (end == std::string_view::npos) end = message.size();
    const std::string_view line = trim(message.substr(at, end - at));
    if (line.substr(0, 3) == "```") {
      if (body) {
        blocks.push_back(message.substr(*body, at - *body));
        body.reset();
      } else {
        std::string info(trim(line.substr(3)));
        for (char& c : info) c = char(std::tolower(static_cast<unsigned char>(c)));
        if (info == "json") body = end + 1 > message.size() ? message.size() : end + 1;
      }
    }
    at = end + 1;
  }
  return blocks;
}

}  // namespace

Result<GoalUpdate> parse_goal_update(std::string_view text) {
  if (text.size() > kMaxGoalUpdateBytes) {
    return usage_error("the goal update has " + std::to_string(text.size()) + " bytes; at most " +
                       std::to_string(kMaxGoalUpdateBytes) + " are accepted");
  }
  if (auto utf8 = check_utf8(text, "the goal update"); !utf8) return utf8.error();
  auto tree = json_spec_tree(text);
  if (!tree) return usage_error("the goal update is not valid JSON: " + tree.error().message);
  if (!tree->is_object() || !tree->contains("goal")) {
    return usage_error("the goal update must be a JSON object with a \"goal\" object");
  }
  if (auto known = refuse_unknown(*tree, {"goal"}, "the goal update"); !known) {
    return known.error();
  }
  const json& goal = (*tree)["goal"];
  if (!goal.is_object()) {
    return usage_error("the goal update's \"goal\" must be an object, not " + shown(goal));
  }
  if (auto known = refuse_unknown(
          goal, {"status", "plan", "node", "node_status", "evidence", "summary", "force"}, "goal");
      !known)
    return known.error();
  GoalUpdate update;
  if (auto read = read_fields(goal, update); !read) return read.error();
  return update;
}

std::optional<std::string> goal_update_in_message(std::string_view message) {
  const std::vector<std::string_view> blocks = json_fences(message);
  for (auto block = blocks.rbegin(); block != blocks.rend(); ++block) {
    if (block->find("\"goal\"") == std::string_view::npos) continue;
    if (block->size() <= kMaxGoalUpdateBytes) {
      auto tree = json_spec_tree(*block);
      if (tree && tree->is_object() && tree->contains("goal")) return std::string(*block);
      // Valid JSON without a "goal" key (one inside, or in a string) is no update.
      if (tree) continue;
    }
    // The agent's last word on the goal is malformed: it is the update, and
    // its error is recorded, rather than an earlier block (an echo of the
    // prompt's example, a draft) applied in its place.
    return std::string(*block);
  }
  return std::nullopt;
}

Result<std::vector<PlanNode>> parse_plan_document(std::string_view text) {
  if (auto utf8 = check_utf8(text, "the plan file"); !utf8) return utf8.error();
  const std::string_view start = trim(text);
  const bool json_text = !start.empty() && (start.front() == '[' || start.front() == '{');
  auto tree = json_text ? json_spec_tree(text) : yaml_spec_tree(text);
  if (!tree) return usage_error("the plan file: " + tree.error().message);
  if (!tree->is_object()) return nodes_from_json(*tree, "plan");
  if (auto known = refuse_unknown(*tree, {"plan"}, "the plan file"); !known) return known.error();
  if (!tree->contains("plan"))
    return usage_error("the plan file has no plan: give a list of nodes");
  return nodes_from_json((*tree)["plan"], "plan");
}

}  // namespace orrery
