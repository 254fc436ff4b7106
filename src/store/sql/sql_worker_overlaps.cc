// SqlStore: overlap warnings (store/worker_overlaps.h), appended to workflow
// journals under each run's row lock, runs taken in id order so that two
// warnings never wait on each other.
#include <algorithm>

#include "core/json_text_list.h"
#include "core/text.h"
#include "store/sql/sql_store.h"
#include "store/sql/workflow_guards.h"

namespace orrery {
namespace {

Result<bool> unfinished_locked(sql::Connection& db, const std::string& run_id) {
  auto query = db.prepare("SELECT status FROM workflow_runs WHERE id = ?1" +
                          std::string(db.row_lock(sql::RowLock::kUpdate)));
  if (!query) return query.error();
  (*query)->bind(1, run_id);
  auto row = (*query)->step();
  if (!row) return row.error();
  if (!*row) return false;
  const std::string status = (*query)->text(0);
  return status == "pending" || status == "running";
}

std::string payload(const WorkerOverlap& o, bool first) {
  std::string text("{\"repo\":");
  text += json_quote(o.repo);
  text += ",\"files\":";
  text += text_list_json(o.files);
  text += ",\"worker_id\":";
  text += json_quote(first ? o.worker_id : o.other_worker_id);
  text += ",\"other_run_id\":";
  text += json_quote(first ? o.other_run_id : o.run_id);
  text += ",\"other_step_id\":";
  text += json_quote(first ? o.other_step_id : o.step_id);
  text += ",\"other_worker_id\":";
  text += json_quote(first ? o.other_worker_id : o.worker_id);
  text += '}';
  return text;
}

}  // namespace

Status SqlStore::note_overlap(const WorkerOverlap& overlap, TimeMs caller_now) {
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  struct Side {
    std::string run_id;
    std::string step_id;
    bool first;
  };
  std::vector<Side> sides{{overlap.run_id, overlap.step_id, true},
                          {overlap.other_run_id, overlap.other_step_id, false}};
  std::sort(sides.begin(), sides.end(),
            [](const Side& a, const Side& b) { return a.run_id < b.run_id; });
  for (const Side& side : sides) {
    auto open = unfinished_locked(*db_, side.run_id);
    if (!open) return open.error();
    if (!*open) continue;
    NewWorkflowEvent event{"worker_overlap", side.step_id, payload(overlap, side.first)};
    if (auto appended = sql::append_workflow_events(*db_, side.run_id, {event}, *clocked);
        !appended)
      return appended;
  }
  return (*transaction)->commit();
}

}  // namespace orrery
