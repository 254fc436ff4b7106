// SqlStore: goals (store/goal_book.h) and the turn a finished piece of
// claimed work is of one (account_goal_turn, called inside the finish's
// transaction). A goal is read under its row lock and written guarded by its
// version; what its status does to its loop is written in the same
// transaction.
#include <algorithm>

#include "core/goal_edits.h"
#include "core/goal_hold.h"
#include "core/goal_prompt.h"
#include "core/loop_transitions.h"
#include "core/text.h"
#include "store/sql/goal_rows.h"
#include "store/sql/id_prefix.h"
#include "store/sql/rows.h"
#include "store/sql/sql_store.h"

namespace orrery {
namespace {

constexpr const char* kOpenGoal = "status NOT IN ('budget_limited', 'complete', 'cancelled')";

// What a piece of claimed work is, for its goal: the target it ran and the
// ids a turn records.
struct TurnWork {
  std::string target_key;  // empty: the work is gone
  GoalTurn ids;            // loop_run_id, workflow_run_id, step_id, dispatch_id
  bool started = false;    // its process was started
};

Result<TurnWork> work_of(sql::Connection& db, const Claim& claim) {
  TurnWork work;
  const bool run = claim.kind == WorkKind::kLoopRun;
  auto query = db.prepare(
      run ? "SELECT loop_id, CASE WHEN pid IS NULL THEN 0 ELSE 1 END FROM runs WHERE id = ?1"
          : "SELECT a.run_id, a.step_id, r.workflow_name, CASE WHEN a.pid IS NULL THEN 0 "
            "ELSE 1 END FROM "
            "workflow_attempts a JOIN workflow_runs r ON r.id = a.run_id "
            "WHERE a.dispatch_id = ?1");
  if (!query) return query.error();
  (*query)->bind(1, claim.id);
  auto row = (*query)->step();
  if (!row) return row.error();
  if (!*row) return work;
  if (run) {
    work.target_key = goal_target_key({GoalTargetType::kLoop, (*query)->text(0), "", "", ""});
    work.ids.loop_run_id = claim.id;
    work.started = (*query)->int64(1) != 0;
  } else {
    work.ids.workflow_run_id = (*query)->text(0);
    work.ids.step_id = (*query)->text(1);
    work.ids.dispatch_id = claim.id;
    work.started = (*query)->int64(3) != 0;
    work.target_key =
        goal_target_key({GoalTargetType::kStep, "", "", (*query)->text(2), (*query)->text(1)});
  }
  return work;
}

Result<std::optional<Goal>> first_goal(sql::Connection& db, const std::string& where,
                                       const sql::Bind& bind) {
  auto goals = sql::query_goals(db, where, bind);
  if (!goals) return goals.error();
  if (goals->empty()) return std::optional<Goal>{};
  return std::optional<Goal>{std::move(goals->front())};
}

Result<std::optional<Goal>> open_goal_of(sql::Connection& db, const std::string& target_key,
                                         std::string_view lock) {
  return first_goal(db, "WHERE target_key = ?1 AND " + std::string(kOpenGoal) + std::string(lock),
                    [&](sql::Statement& s) { s.bind(1, target_key); });
}

// The goal that governs new runs of a target (core/goal_hold.h): its open
// goal, else the goal of it changed last.
Result<std::optional<Goal>> governing_goal(sql::Connection& db, const std::string& target_key,
                                           std::string_view lock) {
  auto open = open_goal_of(db, target_key, lock);
  if (!open || open->has_value()) return open;
  return first_goal(
      db, "WHERE target_key = ?1 ORDER BY updated_at DESC, id DESC LIMIT 1" + std::string(lock),
      [&](sql::Statement& s) { s.bind(1, target_key); });
}

std::string workflow_key(const std::string& workflow_name) {
  return goal_target_key({GoalTargetType::kWorkflow, "", "", workflow_name, ""});
}

Status write_goal(sql::Connection& db, const Goal& goal) {
  static const std::string kUpdate = sql::goal_update_sql();
  auto update = db.prepare(kUpdate);
  if (!update) return update.error();
  sql::bind_goal_update(**update, goal);
  if (auto status = (*update)->run(); !status) return status;
  if (db.changes() != 1) {
    return conflict_error("goal " + goal.id + " changed while it was being updated; try again");
  }
  return Ok{};
}

// The target's row, share-locked until the commit: a loop deleted at the same
// time either waits for the new goal (and cancels it) or is gone first.
Status check_target_exists(sql::Connection& db, const GoalTarget& target) {
  const bool loop = target.type == GoalTargetType::kLoop;
  const std::string lock(db.row_lock(sql::RowLock::kShare));
  auto query = db.prepare(loop ? "SELECT 1 FROM loops WHERE id = ?1" + lock
                               : "SELECT 1 FROM workflows WHERE id = ?1" + lock);
  if (!query) return query.error();
  (*query)->bind(1, loop ? target.loop_id : target.workflow_id);
  auto row = (*query)->step();
  if (!row) return row.error();
  if (*row) return Ok{};
  return not_found_error(std::string("the goal's ") + (loop ? "loop " : "workflow ") +
                         (loop ? target.loop_id : target.workflow_id) + " does not exist");
}

std::string target_phrase(const GoalTarget& target) {
  switch (target.type) {
    case GoalTargetType::kLoop:
      return "loop " + target.loop_id;
    case GoalTargetType::kWorkflow:
      return "workflow " + target.workflow_name;
    case GoalTargetType::kStep:
      return "step " + target.step_id + " of workflow " + target.workflow_name;
  }
  return "";
}

}  // namespace

Result<Goal> SqlStore::create_goal(const Goal& given, TimeMs caller_now) {
  auto objective = check_objective(given.objective);
  if (!objective) return objective.error();
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  Goal goal = given;
  goal.objective = *objective;
  goal.id = new_id(*clocked);
  goal.created_at = goal.updated_at = *clocked;
  goal.version = 1;
  for (PlanNode& node : goal.plan) node.tokens_used = 0;
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  if (auto exists = check_target_exists(*db_, goal.target); !exists) return exists.error();
  static const std::string kInsert = sql::goal_insert_sql();
  auto insert = db_->prepare(kInsert);
  if (!insert) return insert.error();
  sql::bind_goal(**insert, goal);
  if (auto status = (*insert)->run(); !status) return status.error();
  if (db_->changes() != 1) {
    auto open = open_goal_of(*db_, goal_target_key(goal.target), "");
    if (!open) return open.error();
    const std::string which =
        open->has_value() ? " " + (*open)->id + " (" + goal_status_name((*open)->status) + ")" : "";
    return conflict_error(target_phrase(goal.target) + " already has an open goal" + which +
                          "; cancel it first (orrery goal cancel)");
  }
  if (auto taken = take_over_loop(goal, *clocked); !taken) return taken.error();
  if (auto committed = (*transaction)->commit(); !committed) return committed.error();
  return goal;
}

// Within create_goal's transaction: a loop an earlier goal paused (that goal
// finished, or paused and cancelled since) runs for the new goal — it was
// stopped for the old goal's sake alone.
Status SqlStore::take_over_loop(const Goal& goal, TimeMs now) {
  if (goal.target.type != GoalTargetType::kLoop) return Ok{};
  auto loops =
      query_loops(std::string("SELECT ") + sql::loop_select_list() + " FROM loops WHERE id = ?1" +
                      std::string(db_->row_lock(sql::RowLock::kUpdate)),
                  [&](sql::Statement& s) { s.bind(1, goal.target.loop_id); });
  if (!loops) return loops.error();
  if (loops->empty()) return Ok{};
  const Loop& loop = loops->front();
  if (loop.paused_by_goal.empty() || loop.archived || loop.status != LoopStatus::kPaused)
    return Ok{};
  auto resumed = resume_loop(loop, now);
  if (!resumed) return resumed.error();
  auto written = write_loop_part(*resumed, sql::LoopPart::kState, now);
  if (!written) return written.error();
  if (!*written) return conflict_error("loop " + loop.name + " changed meanwhile; try again");
  return notify_daemons();
}

Result<std::optional<Goal>> SqlStore::get_goal(const std::string& id) {
  return first_goal(*db_, "WHERE id = ?1", [&](sql::Statement& s) { s.bind(1, id); });
}

Result<Goal> SqlStore::resolve_goal(const std::string& text) {
  auto id = sql::resolve_id_prefix(*db_, "goals", text, {"goal", "goals", "orrery goal ls"});
  if (!id) return id.error();
  auto goal = get_goal(*id);
  if (!goal) return goal.error();
  if (!goal->has_value()) return not_found_error("goal " + *id + " is gone");
  return std::move(**goal);
}

namespace {

// The goals a filter selects (its status and loop), as ?1-?2.
constexpr const char* kGoalFilterWhere =
    "WHERE (?1 = '' OR status = ?1) AND (?2 = '' OR loop_id = ?2)";

void bind_goal_filter(sql::Statement& s, const GoalFilter& filter) {
  s.bind(1, filter.status ? goal_status_name(*filter.status) : "").bind(2, filter.loop_id);
}

}  // namespace

Result<std::vector<Goal>> SqlStore::list_goals(const GoalFilter& filter) {
  const std::string where =
      std::string(kGoalFilterWhere) + " ORDER BY created_at DESC, id DESC LIMIT ?3 OFFSET ?4";
  return sql::query_goals(*db_, where, [&](sql::Statement& s) {
    bind_goal_filter(s, filter);
    s.bind(3, std::clamp(filter.limit, 1, 10000)).bind(4, std::max(filter.offset, 0));
  });
}

Result<std::int64_t> SqlStore::count_goals(const GoalFilter& filter) {
  return sql::count_rows(*db_, std::string("SELECT COUNT(*) FROM goals ") + kGoalFilterWhere,
                         [&](sql::Statement& s) { bind_goal_filter(s, filter); });
}

Result<std::int64_t> SqlStore::count_turns(const std::string& goal_id) {
  return sql::count_rows(*db_, "SELECT COUNT(*) FROM goal_turns WHERE goal_id = ?1",
                         [&](sql::Statement& s) { s.bind(1, goal_id); });
}

Result<std::vector<GoalTurn>> SqlStore::list_turns(const std::string& goal_id, int limit) {
  auto turns = sql::query_turns(
      *db_, "WHERE goal_id = ?1 ORDER BY created_at DESC, turn DESC, work_id DESC LIMIT ?2",
      [&](sql::Statement& s) { s.bind(1, goal_id).bind(2, std::clamp(limit, 1, 100000)); });
  if (!turns) return turns.error();
  std::reverse(turns->begin(), turns->end());
  return turns;
}

Result<Goal> SqlStore::change_goal(const std::string& id, const GoalEdit& edit, TimeMs caller_now) {
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  auto before =
      first_goal(*db_, "WHERE id = ?1" + std::string(db_->row_lock(sql::RowLock::kUpdate)),
                 [&](sql::Statement& s) { s.bind(1, id); });
  if (!before) return before.error();
  if (!before->has_value()) return not_found_error("no goal has the id '" + visible(id) + "'");
  auto after = edit(**before);
  if (!after) return after.error();
  after->updated_at = *clocked;
  if (is_terminal((*before)->status) && !is_terminal(after->status)) {
    auto open = open_goal_of(*db_, goal_target_key(after->target), "");
    if (!open) return open.error();
    if (open->has_value() && (*open)->id != after->id) {
      return conflict_error(
          "goal " + after->id + " cannot become " + goal_status_name(after->status) + ": " +
          target_phrase(after->target) + " has another open goal, " + (*open)->id + " (" +
          goal_status_name((*open)->status) + "); cancel it first (orrery goal cancel)");
    }
  }
  if (auto written = write_goal(*db_, *after); !written) return written.error();
  if (auto followed = follow_goal_status(**before, *after, *clocked); !followed)
    return followed.error();
  if (auto committed = (*transaction)->commit(); !committed) return committed.error();
  after->version += 1;
  return after;
}

Result<std::optional<Goal>> SqlStore::goal_of_work(const Claim& claim, TimeMs now) {
  auto work = work_of(*db_, claim);
  if (!work) return work.error();
  if (work->target_key.empty()) return std::optional<Goal>{};
  // A step attempt is a turn of its step's goal; without one, it works
  // towards the goal its workflow run was published under (whose turn is
  // the whole run).
  auto open = open_goal_of(*db_, work->target_key, "");
  if (!open) return open.error();
  if (open->has_value()) {
    if (goal_takes_runs(**open, now)) return open;
    return std::optional<Goal>{};
  }
  if (claim.kind != WorkKind::kStepAttempt) return std::optional<Goal>{};
  auto bound = db_->prepare("SELECT goal_id FROM workflow_runs WHERE id = ?1");
  if (!bound) return bound.error();
  (*bound)->bind(1, work->ids.workflow_run_id);
  auto row = (*bound)->step();
  if (!row) return row.error();
  if (!*row || (*bound)->text(0).empty()) return std::optional<Goal>{};
  // Every step of a run published under the goal works towards it, even
  // once the goal has stopped: the run is its turn, and counts.
  return get_goal((*bound)->text(0));
}

Result<std::string> SqlStore::govern_new_run(WorkflowRun& run, TimeMs now) {
  run.goal_id.clear();
  auto goal =
      governing_goal(*db_, workflow_key(run.workflow_name), db_->row_lock(sql::RowLock::kShare));
  if (!goal) return goal.error();
  if (!goal->has_value()) return std::string();
  if (goal_takes_runs(**goal, now)) {
    run.goal_id = (*goal)->id;
    return std::string();
  }
  const std::string hold = goal_hold(**goal, now);
  if (hold.empty()) return std::string();
  return "workflow " + run.workflow_name + " starts no run while " + hold + ": " +
         goal_release_hint(**goal);
}

Result<std::map<std::string, std::string>> SqlStore::workflow_goal_holds(TimeMs caller_now) {
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  std::map<std::string, std::string> holds;
  auto stopped = db_->prepare(
      "SELECT DISTINCT target_key, workflow_name FROM goals WHERE target_type = 'workflow' AND "
      "status IN ('paused', 'blocked', 'usage_limited', 'budget_limited')");
  if (!stopped) return stopped.error();
  std::vector<std::pair<std::string, std::string>> targets;
  for (;;) {
    auto row = (*stopped)->step();
    if (!row) return row.error();
    if (!*row) break;
    targets.emplace_back((*stopped)->text(0), (*stopped)->text(1));
  }
  for (const auto& [key, workflow_name] : targets) {
    auto goal = governing_goal(*db_, key, "");
    if (!goal) return goal.error();
    if (!goal->has_value()) continue;
    std::string hold = goal_hold(**goal, *clocked);
    if (!hold.empty()) holds[workflow_name] = std::move(hold);
  }
  return holds;
}

Result<int> SqlStore::reopen_cooled_goals(TimeMs caller_now, const Fence& fence) {
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  // Read first: a tick with no goal to reopen takes no write lock.
  {
    auto due = db_->prepare(
        "SELECT 1 FROM goals WHERE status = 'usage_limited' AND limited_until <= ?1 LIMIT 1");
    if (!due) return due.error();
    (*due)->bind(1, *clocked);
    auto row = (*due)->step();
    if (!row) return row.error();
    if (!*row) return 0;
  }
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  if (auto fenced = check_fence_at(fence, *clocked); !fenced) return fenced.error();
  auto update = db_->prepare(
      "UPDATE goals SET status = 'active', status_reason = 'the usage-limit cooldown ended', "
      "limited_until = NULL, version = version + 1, updated_at = ?1 "
      "WHERE status = 'usage_limited' AND limited_until <= ?1");
  if (!update) return update.error();
  (*update)->bind(1, *clocked);
  if (auto status = (*update)->run(); !status) return status.error();
  const int reopened = int(db_->changes());
  if (auto committed = (*transaction)->commit(); !committed) return committed.error();
  return reopened;
}

Status SqlStore::account_goal_turn(const Claim& claim, const RunOutcome& outcome, TimeMs now) {
  auto work = work_of(*db_, claim);
  if (!work) return work.error();
  if (work->target_key.empty()) return Ok{};
  TurnInput input;
  input.run_status = outcome.status;
  input.tokens = outcome.usage.input_tokens.value_or(0);
  if (__builtin_add_overflow(input.tokens, outcome.usage.output_tokens.value_or(0), &input.tokens))
    input.tokens = INT64_MAX;
  input.usage_limited = outcome.usage_limited;
  input.limited_until = outcome.usage_limited_until;
  input.given_node = outcome.goal_node;
  input.update = outcome.goal_update;
  input.update_error = outcome.goal_update_error;
  input.work_started = work->started || outcome.exit_code || outcome.signal;
  input.run_error = outcome.error;
  input.now = now;
  return record_turn(work->target_key, outcome.goal_id, input, work->ids, claim.id);
}

Status SqlStore::account_workflow_turn(const std::string& run_id, const WorkflowAdvance& advance,
                                       TimeMs now) {
  auto run = db_->prepare(
      "SELECT r.workflow_name, r.loop_run_id, (SELECT COALESCE(SUM(COALESCE(a.input_tokens, 0) + "
      "COALESCE(a.output_tokens, 0)), 0) FROM workflow_attempts a WHERE a.run_id = r.id), "
      "r.goal_id, CASE WHEN EXISTS (SELECT 1 FROM workflow_attempts a WHERE a.run_id = r.id AND "
      "a.pid IS NOT NULL) THEN 1 ELSE 0 END, r.error FROM workflow_runs r WHERE r.id = ?1");
  if (!run) return run.error();
  (*run)->bind(1, run_id);
  auto row = (*run)->step();
  if (!row) return row.error();
  // A run is a turn of the goal it was published under, whatever that goal
  // became since: its tokens count (docs/goals.md, "A goal over a fleet").
  if (!*row || (*run)->text(3).empty()) return Ok{};
  GoalTurn ids;
  ids.workflow_run_id = run_id;
  ids.loop_run_id = (*run)->text(1);
  TurnInput input;
  input.run_status = *advance.finish == WorkflowRunStatus::kSucceeded   ? RunStatus::kSucceeded
                     : *advance.finish == WorkflowRunStatus::kCancelled ? RunStatus::kCancelled
                                                                        : RunStatus::kFailed;
  input.tokens = (*run)->int64(2);
  input.update = advance.goal_update;
  input.update_error = advance.goal_update_error;
  input.work_started = (*run)->int64(4) != 0;
  input.run_error = advance.error.empty() ? (*run)->text(5) : advance.error;
  input.now = now;
  return record_turn(workflow_key((*run)->text(0)), (*run)->text(3), input, ids, run_id);
}

// The turn of the goal named (or, with no name, of the target's open goal
// while a turn is given to it), written once per piece of work.
Status SqlStore::record_turn(const std::string& target_key, const std::string& goal_id,
                             TurnInput input, const GoalTurn& ids, const std::string& work_id) {
  const std::string lock(db_->row_lock(sql::RowLock::kUpdate));
  auto goal = goal_id.empty() ? open_goal_of(*db_, target_key, lock)
                              : first_goal(*db_, "WHERE id = ?1" + lock,
                                           [&](sql::Statement& s) { s.bind(1, goal_id); });
  if (!goal) return goal.error();
  if (!goal->has_value()) return Ok{};
  const Goal& before = **goal;
  // Work that ended without its supervisor's word was a turn only if its
  // goal was one a turn is given.
  if (goal_id.empty() && before.status != GoalStatus::kActive && !cooldown_over(before, input.now))
    return Ok{};
  // Work that ended without its supervisor, and a whole workflow run (whose
  // steps were each given the node ready at their start), were given the
  // node ready now.
  const bool whole_workflow_run = work_id == ids.workflow_run_id;
  if (input.given_node.empty() && (goal_id.empty() || whole_workflow_run))
    input.given_node = node_to_work_on(before);
  TurnSettlement settled = settle_turn(before, input);
  GoalTurn turn = std::move(settled.turn);
  turn.loop_run_id = ids.loop_run_id;
  turn.workflow_run_id = ids.workflow_run_id;
  turn.step_id = ids.step_id;
  turn.dispatch_id = ids.dispatch_id;
  if (auto inserted = sql::insert_turn(*db_, turn, work_id); !inserted) return inserted;
  if (db_->changes() != 1) return Ok{};  // already counted: a turn is counted once
  if (auto written = write_goal(*db_, settled.goal); !written) return written;
  return follow_goal_status(before, settled.goal, input.now);
}

Status SqlStore::follow_goal_status(const Goal& before, const Goal& after, TimeMs now) {
  if (after.target.type != GoalTargetType::kLoop || before.status == after.status) return Ok{};
  const bool stopping = stops_target(after.status) && !stops_target(before.status);
  const bool starting = after.status == GoalStatus::kActive && before.status != after.status;
  if (!stopping && !starting) return Ok{};
  auto loops =
      query_loops(std::string("SELECT ") + sql::loop_select_list() + " FROM loops WHERE id = ?1" +
                      std::string(db_->row_lock(sql::RowLock::kUpdate)),
                  [&](sql::Statement& s) { s.bind(1, after.target.loop_id); });
  if (!loops) return loops.error();
  if (loops->empty()) return Ok{};
  const Loop& loop = loops->front();
  Result<Loop> changed = Loop{};
  if (stopping) {
    if (loop.archived || loop.status != LoopStatus::kActive) return Ok{};
    changed = pause_loop(loop, now);
    if (changed) changed->paused_by_goal = after.id;
  } else {
    if (loop.paused_by_goal != after.id || loop.archived || loop.status != LoopStatus::kPaused)
      return Ok{};
    changed = resume_loop(loop, now);
  }
  if (!changed) return changed.error();
  auto written = write_loop_part(*changed, sql::LoopPart::kState, now);
  if (!written) return written.error();
  if (!*written) {
    return conflict_error("loop " + loop.name + " changed while its goal " + after.id +
                          " was being updated; try again");
  }
  return notify_daemons();
}

}  // namespace orrery
