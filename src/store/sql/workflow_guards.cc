#include "store/sql/workflow_guards.h"

namespace orrery::sql {

Result<bool> lock_workflow_run(Connection& db, const std::string& run_id) {
  auto lock = db.prepare("SELECT id FROM workflow_runs WHERE id = ?1" +
                         std::string(db.row_lock(RowLock::kUpdate)));
  if (!lock) return lock.error();
  (*lock)->bind(1, run_id);
  auto row = (*lock)->step();
  if (!row) return row.error();
  return *row;
}

Status hold_engine_lease(Connection& db, const EngineFence& fence, TimeMs now) {
  auto query = db.prepare(
      "SELECT status, driver, driver_token, driver_lease_expires_at FROM workflow_runs "
      "WHERE id = ?1" +
      std::string(db.row_lock(RowLock::kUpdate)));
  if (!query) return query.error();
  (*query)->bind(1, fence.run_id);
  auto row = (*query)->step();
  if (!row) return row.error();
  if (!*row) return not_found_error("no workflow run has the id '" + fence.run_id + "'");
  const std::string status = (*query)->text(0);
  if (status != "pending" && status != "running") {
    return conflict_error("workflow run " + fence.run_id + " has finished (" + status + ")");
  }
  const auto expires = (*query)->optional_int64(3);
  const bool held = !fence.token.empty() && (*query)->text(1) == fence.driver &&
                    (*query)->text(2) == fence.token && expires && *expires > now;
  if (!held) return conflict_error("engine lease lost");
  return Ok{};
}

Status append_workflow_events(Connection& db, const std::string& run_id,
                              const std::vector<NewWorkflowEvent>& events, TimeMs now) {
  if (events.empty()) return Ok{};
  std::int64_t last = 0;
  {
    auto query =
        db.prepare("SELECT COALESCE(MAX(sequence), 0) FROM workflow_events WHERE run_id = ?1");
    if (!query) return query.error();
    (*query)->bind(1, run_id);
    auto row = (*query)->step();
    if (!row) return row.error();
    if (*row) last = (*query)->int64(0);
  }
  for (const NewWorkflowEvent& event : events) {
    if (event.event_type.empty()) return usage_error("a workflow event needs a type");
    auto insert = db.prepare(
        "INSERT INTO workflow_events (run_id, sequence, event_type, step_id, payload_json, "
        "created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    if (!insert) return insert.error();
    (*insert)
        ->bind(1, run_id)
        .bind(2, ++last)
        .bind(3, event.event_type)
        .bind(4, event.step_id)
        .bind(5, event.payload_json.empty() ? std::string("{}") : event.payload_json)
        .bind(6, now);
    if (auto status = (*insert)->run(); !status) return status;
  }
  return Ok{};
}

}  // namespace orrery::sql
