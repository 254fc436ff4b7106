// The rows of goals and goal_turns (docs/storage.md, "Goals"): the column
// lists, how a goal is bound and read, and the plan's JSON column. Stored
// rows are not trusted: a status or plan that does not parse is an internal
// error naming the goal, never a crash.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/goal.h"
#include "core/goal_turn.h"
#include "core/result.h"
#include "store/sql/connection.h"

namespace orrery::sql {

// "id, objective, ..." for SELECT ... FROM goals.
std::string goal_select_list();
// INSERT of a whole goal, ?1.. in column order.
std::string goal_insert_sql();
void bind_goal(Statement& statement, const Goal& goal);
// UPDATE of every column but id and created_at, ?1 = id, guarded by
// version = ?2 (the version as read); the version is bumped.
std::string goal_update_sql();
void bind_goal_update(Statement& statement, const Goal& goal);
Result<Goal> read_goal(const Statement& row);

using Bind = std::function<void(Statement&)>;
// Goals matching `where` (a clause after FROM goals, with its ORDER BY).
Result<std::vector<Goal>> query_goals(Connection& db, const std::string& where, const Bind& bind);

std::string plan_to_json(const std::vector<PlanNode>& plan);
Result<std::vector<PlanNode>> plan_from_json(const std::string& text);

// INSERT of a turn made by the work `work_id`, ON CONFLICT DO NOTHING: a
// piece of work is a turn at most once (the caller checks the row count).
Status insert_turn(Connection& db, const GoalTurn& turn, const std::string& work_id);
Result<std::vector<GoalTurn>> query_turns(Connection& db, const std::string& where,
                                          const Bind& bind);

}  // namespace orrery::sql
