#include "store/sql/goal_rows.h"

#include <nlohmann/json.hpp>

#include "core/exact_json.h"
#include "store/sql/rows.h"

namespace orrery::sql {
namespace {

using nlohmann::json;

// Every goal column but id, created_at and version, in bind order.
constexpr const char* kGoalColumns[] = {"objective",     "status",
                                        "status_reason", "target_type",
                                        "target_key",    "loop_id",
                                        "workflow_id",   "workflow_name",
                                        "step_id",       "drive",
                                        "token_budget",  "tokens_used",
                                        "max_turns",     "turns",
                                        "stall_turns",   "turns_without_progress",
                                        "limited_until", "last_evidence_json",
                                        "last_summary",  "last_update_error",
                                        "plan_json",     "updated_at"};
constexpr int kGoalColumnCount = int(std::size(kGoalColumns));

void bind_columns(Statement& s, int first, const Goal& goal) {
  const GoalTarget& target = goal.target;
  s.bind(first, goal.objective)
      .bind(first + 1, goal_status_name(goal.status))
      .bind(first + 2, goal.status_reason)
      .bind(first + 3, goal_target_type_name(target.type))
      .bind(first + 4, goal_target_key(target))
      .bind(first + 5, target.loop_id)
      .bind(first + 6, target.workflow_id)
      .bind(first + 7, target.workflow_name)
      .bind(first + 8, target.step_id)
      .bind(first + 9, drive_mode_name(goal.drive))
      .bind(first + 10, goal.token_budget)
      .bind(first + 11, goal.tokens_used)
      .bind(first + 12, goal.max_turns)
      .bind(first + 13, goal.turns)
      .bind(first + 14, goal.stall_turns)
      .bind(first + 15, goal.turns_without_progress)
      .bind(first + 16, goal.limited_until)
      .bind(first + 17, goal.last_evidence_json)
      .bind(first + 18, goal.last_summary)
      .bind(first + 19, goal.last_update_error)
      .bind(first + 20, plan_to_json(goal.plan))
      .bind(first + 21, goal.updated_at);
}

Error damaged(const std::string& id, const std::string& why) {
  return internal_error("goal " + id + " is damaged in the database: " + why);
}

Result<GoalTargetType> parse_target_type(const std::string& text) {
  for (GoalTargetType type :
       {GoalTargetType::kLoop, GoalTargetType::kWorkflow, GoalTargetType::kStep}) {
    if (text == goal_target_type_name(type)) return type;
  }
  return usage_error("unknown target type '" + text + "'");
}

Result<GoalTurn> read_turn(const Statement& row) {
  GoalTurn turn;
  turn.goal_id = row.text(0);
  turn.turn = int(row.int64(1));
  turn.spent = row.int64(2) != 0;
  turn.loop_run_id = row.text(3);
  turn.workflow_run_id = row.text(4);
  turn.step_id = row.text(5);
  turn.dispatch_id = row.text(6);
  turn.node_key = row.text(7);
  auto run_status = parse_run_status(row.text(8));
  auto status = parse_goal_status(row.text(9));
  if (!run_status || !status) return damaged(turn.goal_id, "a turn's status does not parse");
  turn.run_status = *run_status;
  turn.status = *status;
  turn.tokens_used = row.int64(10);
  turn.evidence_json = row.text(11);
  turn.summary = row.text(12);
  turn.update_json = row.text(13);
  turn.update_error = row.text(14);
  turn.created_at = row.int64(15);
  return turn;
}

constexpr const char* kTurnColumns =
    "goal_id, turn, spent, loop_run_id, workflow_run_id, step_id, dispatch_id, node_key, "
    "run_status, status, tokens_used, evidence_json, summary, update_json, update_error, "
    "created_at";

}  // namespace

std::string goal_select_list() {
  std::string list = "id, created_at, version";
  for (const char* column : kGoalColumns) list.append(", ").append(column);
  return list;
}

std::string goal_insert_sql() {
  std::string sql = "INSERT INTO goals (" + goal_select_list() + ") VALUES (?1, ?2, ?3";
  for (int index = 0; index < kGoalColumnCount; ++index) {
    sql.append(", ?").append(std::to_string(4 + index));
  }
  sql.append(") ON CONFLICT DO NOTHING");
  return sql;
}

void bind_goal(Statement& statement, const Goal& goal) {
  statement.bind(1, goal.id).bind(2, goal.created_at).bind(3, goal.version);
  bind_columns(statement, 4, goal);
}

std::string goal_update_sql() {
  std::string sql = "UPDATE goals SET version = version + 1";
  for (int index = 0; index < kGoalColumnCount; ++index) {
    sql.append(", ").append(kGoalColumns[index]).append(" = ?").append(std::to_string(3 + index));
  }
  sql.append(" WHERE id = ?1 AND version = ?2");
  return sql;
}

void bind_goal_update(Statement& statement, const Goal& goal) {
  statement.bind(1, goal.id).bind(2, goal.version);
  bind_columns(statement, 3, goal);
}

Result<Goal> read_goal(const Statement& row) {
  Goal goal;
  goal.id = row.text(0);
  goal.created_at = row.int64(1);
  goal.version = row.int64(2);
  const int at = 3;
  goal.objective = row.text(at);
  auto status = parse_goal_status(row.text(at + 1));
  if (!status) return damaged(goal.id, status.error().message);
  goal.status = *status;
  goal.status_reason = row.text(at + 2);
  auto type = parse_target_type(row.text(at + 3));
  if (!type) return damaged(goal.id, type.error().message);
  goal.target.type = *type;
  goal.target.loop_id = row.text(at + 5);
  goal.target.workflow_id = row.text(at + 6);
  goal.target.workflow_name = row.text(at + 7);
  goal.target.step_id = row.text(at + 8);
  auto drive = parse_drive_mode(row.text(at + 9));
  if (!drive) return damaged(goal.id, drive.error().message);
  goal.drive = *drive;
  goal.token_budget = row.optional_int64(at + 10);
  goal.tokens_used = row.int64(at + 11);
  if (auto turns = row.optional_int64(at + 12)) goal.max_turns = int(*turns);
  goal.turns = int(row.int64(at + 13));
  goal.stall_turns = int(row.int64(at + 14));
  goal.turns_without_progress = int(row.int64(at + 15));
  goal.limited_until = row.optional_int64(at + 16);
  goal.last_evidence_json = row.text(at + 17);
  goal.last_summary = row.text(at + 18);
  goal.last_update_error = row.text(at + 19);
  auto plan = plan_from_json(row.text(at + 20));
  if (!plan) return damaged(goal.id, plan.error().message);
  goal.plan = std::move(*plan);
  goal.updated_at = row.int64(at + 21);
  return goal;
}

Result<std::vector<Goal>> query_goals(Connection& db, const std::string& where, const Bind& bind) {
  auto query = db.prepare("SELECT " + goal_select_list() + " FROM goals " + where);
  if (!query) return query.error();
  bind(**query);
  return read_all(**query, read_goal);
}

std::string plan_to_json(const std::vector<PlanNode>& plan) {
  json nodes = json::array();
  for (const PlanNode& node : plan) {
    nodes.push_back({{"key", node.key},
                     {"objective", node.objective},
                     {"status", node_status_name(node.status)},
                     {"depends_on", node.depends_on},
                     {"priority", node.priority},
                     {"token_budget", node.token_budget ? json(*node.token_budget) : json()},
                     {"tokens_used", node.tokens_used},
                     {"sequence", node.sequence}});
  }
  return write_json(nodes);
}

Result<std::vector<PlanNode>> plan_from_json(const std::string& text) {
  const json nodes = read_json(text);
  if (!nodes.is_array()) return usage_error("its plan is not a JSON list");
  std::vector<PlanNode> plan;
  try {
    for (const json& entry : nodes) {
      PlanNode node;
      node.key = entry.at("key").get<std::string>();
      node.objective = entry.at("objective").get<std::string>();
      auto status = parse_node_status(entry.at("status").get<std::string>());
      if (!status) return status.error();
      node.status = *status;
      node.depends_on = entry.at("depends_on").get<std::vector<std::string>>();
      node.priority = entry.at("priority").get<std::int64_t>();
      if (!entry.at("token_budget").is_null())
        node.token_budget = entry.at("token_budget").get<std::int64_t>();
      node.tokens_used = entry.at("tokens_used").get<std::int64_t>();
      node.sequence = entry.at("sequence").get<std::int64_t>();
      plan.push_back(std::move(node));
    }
  } catch (const json::exception&) {
    return usage_error("a node of its plan lacks a field or has one of the wrong type");
  }
  return plan;
}

Status insert_turn(Connection& db, const GoalTurn& turn, const std::string& work_id) {
  auto insert = db.prepare(std::string("INSERT INTO goal_turns (") + kTurnColumns +
                           ", work_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
                           "?13, ?14, ?15, ?16, ?17) ON CONFLICT DO NOTHING");
  if (!insert) return insert.error();
  (*insert)
      ->bind(1, turn.goal_id)
      .bind(2, turn.turn)
      .bind(3, turn.spent ? 1 : 0)
      .bind(4, turn.loop_run_id)
      .bind(5, turn.workflow_run_id)
      .bind(6, turn.step_id)
      .bind(7, turn.dispatch_id)
      .bind(8, turn.node_key)
      .bind(9, run_status_name(turn.run_status))
      .bind(10, goal_status_name(turn.status))
      .bind(11, turn.tokens_used)
      .bind(12, turn.evidence_json)
      .bind(13, turn.summary)
      .bind(14, turn.update_json)
      .bind(15, turn.update_error)
      .bind(16, turn.created_at)
      .bind(17, work_id);
  return (*insert)->run();
}

Result<std::vector<GoalTurn>> query_turns(Connection& db, const std::string& where,
                                          const Bind& bind) {
  auto query = db.prepare(std::string("SELECT ") + kTurnColumns + " FROM goal_turns " + where);
  if (!query) return query.error();
  bind(**query);
  return read_all(**query, read_turn);
}

}  // namespace orrery::sql
