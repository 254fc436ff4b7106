// SqlStore: the engine lease of a workflow run and its driver's decisions
// (docs/workflows.md, "One driver per run"). A lease's token starts with a
// generation that grows with every acquisition of the run ("g3-…"), so a
// stale driver is recognisable; every write of a driver locks the run's row
// and checks its lease live first (store/sql/workflow_guards.h).
#include <algorithm>

#include "store/sql/sql_store.h"
#include "store/sql/workflow_guards.h"
#include "store/sql/workflow_rows.h"

namespace orrery {
namespace {

constexpr int kMaxRowsPerRead = 10'000;

Status check_ttl(DurationMs ttl_ms) {
  if (ttl_ms <= 0) {
    return usage_error("an engine lease of " + std::to_string(ttl_ms) +
                       " ms cannot be taken: give a positive duration");
  }
  return Ok{};
}

// The step change's update: the given fields only, guarded by `from`.
Status apply_step_change(sql::Connection& db, const std::string& run_id, const StepChange& change,
                         TimeMs now) {
  auto update = db.prepare(
      "UPDATE workflow_steps SET status = ?3, finished_at = COALESCE(?4, finished_at), "
      "exit_code = COALESCE(?5, exit_code), error = COALESCE(?6, error), "
      "outputs_json = COALESCE(?7, outputs_json), updated_at = ?8 "
      "WHERE run_id = ?1 AND step_id = ?2 AND status = ?9");
  if (!update) return update.error();
  (*update)
      ->bind(1, run_id)
      .bind(2, change.step_id)
      .bind(3, step_status_name(change.to))
      .bind(4, change.finished_at)
      .bind(5, change.exit_code)
      .bind(6, change.error)
      .bind(7, change.outputs_json)
      .bind(8, now)
      .bind(9, step_status_name(change.from));
  if (auto status = (*update)->run(); !status) return status;
  if (db.changes() != 1) {
    return conflict_error("step " + change.step_id + " of workflow run " + run_id + " is not " +
                          step_status_name(change.from) + " any more; nothing was written");
  }
  return Ok{};
}

}  // namespace

// Read under the run's row lock, written with a guard on what was read (the
// generation, and no live lease): of drivers racing for one run exactly one
// writes the lease; the others find it live, or lose the guard.
Result<std::optional<EngineFence>> SqlStore::acquire_engine_lease(const std::string& run_id,
                                                                  const std::string& driver,
                                                                  DurationMs ttl_ms,
                                                                  TimeMs caller_now) {
  using Acquired = std::optional<EngineFence>;
  if (driver.empty()) return usage_error("a workflow run's driver needs a name");
  if (auto valid = check_ttl(ttl_ms); !valid) return valid.error();
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  const TimeMs now = *clocked;
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  auto query = db_->prepare(
      "SELECT status, driver_generation, driver_lease_expires_at FROM workflow_runs WHERE id = "
      "?1" +
      std::string(db_->row_lock(sql::RowLock::kUpdate)));
  if (!query) return query.error();
  (*query)->bind(1, run_id);
  auto row = (*query)->step();
  if (!row) return row.error();
  if (!*row) return not_found_error("no workflow run has the id '" + run_id + "'");
  const std::string status = (*query)->text(0);
  const std::int64_t generation = (*query)->int64(1) + 1;
  const auto expires = (*query)->optional_int64(2);
  if (status != "pending" && status != "running") {
    return conflict_error("workflow run " + run_id + " has finished (" + status +
                          "): it needs no driver");
  }
  if (expires && *expires > now) return Acquired{};  // another driver's live lease
  // Appended piece by piece: g++ 12 at -O3 warns (-Wrestrict) on "g" + std::string.
  std::string token = "g";
  token += std::to_string(generation);
  token += '-';
  token += random_hex(10);
  auto take = db_->prepare(
      "UPDATE workflow_runs SET driver = ?2, driver_token = ?3, driver_generation = ?4, "
      "driver_lease_expires_at = ?5, status = 'running', started_at = COALESCE(started_at, ?6), "
      "updated_at = ?6 WHERE id = ?1 AND driver_generation = ?4 - 1 "
      "AND status IN ('pending', 'running') "
      "AND (driver_lease_expires_at IS NULL OR driver_lease_expires_at <= ?6)");
  if (!take) return take.error();
  (*take)
      ->bind(1, run_id)
      .bind(2, driver)
      .bind(3, token)
      .bind(4, generation)
      .bind(5, add_saturating(now, ttl_ms))
      .bind(6, now);
  if (auto taken = (*take)->run(); !taken) return taken.error();
  if (db_->changes() != 1) return Acquired{};  // another driver was first
  if (auto committed = (*transaction)->commit(); !committed) return committed.error();
  return Acquired{EngineFence{run_id, driver, token}};
}

Status SqlStore::heartbeat_engine_lease(const EngineFence& fence, DurationMs ttl_ms,
                                        TimeMs caller_now) {
  if (auto valid = check_ttl(ttl_ms); !valid) return valid;
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  const TimeMs now = *clocked;
  auto update = db_->prepare(
      "UPDATE workflow_runs SET driver_lease_expires_at = ?4, updated_at = ?5 WHERE id = ?1 "
      "AND driver = ?2 AND driver_token = ?3 AND driver_token != '' "
      "AND driver_lease_expires_at > ?5 AND status IN ('pending', 'running')");
  if (!update) return update.error();
  (*update)
      ->bind(1, fence.run_id)
      .bind(2, fence.driver)
      .bind(3, fence.token)
      .bind(4, add_saturating(now, ttl_ms))
      .bind(5, now);
  if (auto status = (*update)->run(); !status) return status;
  if (db_->changes() != 1) return conflict_error("engine lease lost");
  return Ok{};
}

Status SqlStore::release_engine_lease(const EngineFence& fence) {
  // The driver and token stay, as who held it last; the generation stays,
  // so that the next acquisition follows it.
  auto update = db_->prepare(
      "UPDATE workflow_runs SET driver_lease_expires_at = NULL WHERE id = ?1 AND driver = ?2 "
      "AND driver_token = ?3 AND driver_token != ''");
  if (!update) return update.error();
  (*update)->bind(1, fence.run_id).bind(2, fence.driver).bind(3, fence.token);
  return (*update)->run();
}

Result<std::vector<WorkflowRun>> SqlStore::workflow_runs_without_driver(TimeMs caller_now,
                                                                        int limit) {
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  // Reads the partial index workflow_runs_unfinished (created_at, id) of
  // pending and running runs, oldest first.
  auto query =
      db_->prepare("SELECT " + sql::workflow_run_select_list() + " FROM workflow_runs " +
                   db_->index_hint("workflow_runs_unfinished") +
                   "WHERE status IN ('pending', 'running') AND (driver_lease_expires_at IS NULL OR "
                   "driver_lease_expires_at <= ?1) ORDER BY created_at, id LIMIT ?2");
  if (!query) return query.error();
  (*query)->bind(1, *clocked).bind(2, std::clamp(limit, 0, kMaxRowsPerRead));
  return sql::read_all(**query, sql::read_workflow_run);
}

Status SqlStore::advance_workflow_run(const EngineFence& fence, const WorkflowAdvance& advance,
                                      TimeMs caller_now) {
  if (advance.finish && !is_finished(*advance.finish)) {
    return usage_error(std::string("a workflow run cannot finish as ") +
                       workflow_run_status_name(*advance.finish));
  }
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  const TimeMs now = *clocked;
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  if (auto held = sql::hold_engine_lease(*db_, fence, now); !held) return held;
  for (const StepChange& change : advance.steps) {
    if (auto applied = apply_step_change(*db_, fence.run_id, change, now); !applied) {
      return applied;
    }
  }
  if (auto appended = sql::append_workflow_events(*db_, fence.run_id, advance.events, now);
      !appended) {
    return appended;
  }
  auto update = db_->prepare(
      advance.finish
          ? "UPDATE workflow_runs SET status = ?3, finished_at = ?2, error = ?4, "
            "driver_lease_expires_at = NULL, updated_at = ?2 WHERE id = ?1 AND status IN "
            "('pending', 'running') AND driver_token = ?5"
          : "UPDATE workflow_runs SET updated_at = ?2 WHERE id = ?1 AND status IN "
            "('pending', 'running') AND driver_token = ?5");
  if (!update) return update.error();
  (*update)->bind(1, fence.run_id).bind(2, now).bind(5, fence.token);
  if (advance.finish) {
    (*update)->bind(3, workflow_run_status_name(*advance.finish)).bind(4, advance.error);
  }
  if (auto status = (*update)->run(); !status) return status;
  if (db_->changes() != 1) return conflict_error("engine lease lost");
  if (advance.finish) {
    if (auto turn = account_workflow_turn(fence.run_id, advance, now); !turn) return turn;
  }
  return (*transaction)->commit();
}

}  // namespace orrery
