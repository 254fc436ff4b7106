#include "views/goal_view.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/goal_plan.h"
#include "views/json_fields.h"

namespace orrery {
namespace {

using nlohmann::json;

json plan_json(const std::vector<PlanNode>& plan) {
  const std::vector<std::string> ready = ready_keys(plan);
  json nodes = json::array();
  for (const PlanNode& node : plan) {
    nodes.push_back({{"key", node.key},
                     {"objective", node.objective},
                     {"status", node_status_name(node.status)},
                     {"depends_on", node.depends_on},
                     {"priority", node.priority},
                     {"token_budget", value_or_null(node.token_budget)},
                     {"tokens_used", node.tokens_used},
                     {"sequence", node.sequence},
                     {"ready", std::find(ready.begin(), ready.end(), node.key) != ready.end()}});
  }
  return nodes;
}

json rollup_json(const std::vector<PlanNode>& plan) {
  const PlanRollup rollup = plan_rollup(plan);
  return {{"total", rollup.total},       {"pending", rollup.pending},
          {"active", rollup.active},     {"blocked", rollup.blocked},
          {"complete", rollup.complete}, {"cancelled", rollup.cancelled}};
}

json target_json(const GoalTarget& target) {
  return {{"type", goal_target_type_name(target.type)},
          {"loop_id", text_or_null(target.loop_id)},
          {"workflow_id", text_or_null(target.workflow_id)},
          {"workflow_name", text_or_null(target.workflow_name)},
          {"step_id", text_or_null(target.step_id)}};
}

// Stored JSON text as a value (none: null); text that is not JSON stays a
// string.
json embedded(const std::string& text) { return text.empty() ? json(nullptr) : stored_json(text); }

}  // namespace

json goal_json(const Goal& goal) {
  json document = {{"id", goal.id},
                   {"objective", goal.objective},
                   {"status", goal_status_name(goal.status)},
                   {"status_reason", goal.status_reason},
                   {"target", target_json(goal.target)},
                   {"drive", drive_mode_name(goal.drive)},
                   {"token_budget", value_or_null(goal.token_budget)},
                   {"tokens_used", goal.tokens_used},
                   {"tokens_left", value_or_null(tokens_left(goal))},
                   {"max_turns", goal.max_turns ? json(*goal.max_turns) : json(nullptr)},
                   {"turns", goal.turns},
                   {"stall_turns", goal.stall_turns},
                   {"turns_without_progress", goal.turns_without_progress},
                   {"limited_until",
                    goal.limited_until ? json(format_time(*goal.limited_until)) : json(nullptr)},
                   {"plan", plan_json(goal.plan)},
                   {"ready", ready_keys(goal.plan)},
                   {"rollup", rollup_json(goal.plan)},
                   {"last_summary", text_or_null(goal.last_summary)},
                   {"last_update_error", text_or_null(goal.last_update_error)},
                   {"created_at", format_time(goal.created_at)},
                   {"updated_at", format_time(goal.updated_at)}};
  return document;
}

json turn_json(const GoalTurn& turn) {
  json document = {{"turn", turn.turn},
                   {"goal_id", turn.goal_id},
                   {"spent", turn.spent},
                   {"loop_run_id", text_or_null(turn.loop_run_id)},
                   {"workflow_run_id", text_or_null(turn.workflow_run_id)},
                   {"step_id", text_or_null(turn.step_id)},
                   {"dispatch_id", text_or_null(turn.dispatch_id)},
                   {"node_key", text_or_null(turn.node_key)},
                   {"run_status", run_status_name(turn.run_status)},
                   {"status", goal_status_name(turn.status)},
                   {"tokens_used", turn.tokens_used},
                   {"evidence", embedded(turn.evidence_json)},
                   {"summary", text_or_null(turn.summary)},
                   {"update", text_or_null(turn.update_json)},
                   {"update_error", text_or_null(turn.update_error)},
                   {"created_at", format_time(turn.created_at)}};
  return document;
}

}  // namespace orrery
