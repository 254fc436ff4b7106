// SqlStore: workers (store/worker_book.h). Every change of state is one
// UPDATE guarded by the state (and lease owner) as read, with its event
// appended in the same transaction.
#include <algorithm>

#include "core/json_text_list.h"
#include "core/text.h"
#include "store/sql/id_prefix.h"
#include "store/sql/rows.h"
#include "store/sql/sql_store.h"
#include "store/sql/worker_rows.h"

namespace orrery {
namespace {

constexpr size_t kMaxReasonCharacters = 1000;

Result<std::optional<Worker>> first_worker(sql::Connection& db, const std::string& where,
                                           const sql::Bind& bind) {
  auto workers = sql::query_workers(db, where, bind);
  if (!workers) return workers.error();
  if (workers->empty()) return std::optional<Worker>{};
  return std::optional<Worker>{std::move(workers->front())};
}

// The guarded UPDATE of one change: from the state as read, and the owner
// when the change names one.
Status write_change(sql::Connection& db, const WorkerChange& change, const Worker& after,
                    const std::string& read_owner) {
  auto update = db.prepare(
      "UPDATE workers SET state = ?3, lease_owner = ?4, lease_expires_at = ?5, "
      "heartbeat_at = ?6, final_revision = ?7, changed_files_json = ?8, hold_reason = ?9, "
      "failure_reason = ?10, updated_at = ?11, finished_at = ?12 "
      "WHERE id = ?1 AND state = ?2 AND lease_owner = ?13");
  if (!update) return update.error();
  (*update)
      ->bind(1, after.id)
      .bind(2, worker_state_name(change.from))
      .bind(3, worker_state_name(after.state))
      .bind(4, after.lease_owner)
      .bind(5, after.lease_expires_at)
      .bind(6, after.heartbeat_at)
      .bind(7, after.final_revision)
      .bind(8, text_list_json(after.changed_files))
      .bind(9, after.hold_reason)
      .bind(10, after.failure_reason)
      .bind(11, after.updated_at)
      .bind(12, after.finished_at)
      .bind(13, read_owner);
  if (auto status = (*update)->run(); !status) return status;
  if (db.changes() != 1) {
    return conflict_error("worker " + after.id + " changed while it was being updated; try again");
  }
  return Ok{};
}

// The worker after `change`, as the store will write it.
Worker changed(Worker worker, const WorkerChange& change, const std::string& reason, TimeMs now) {
  worker.state = change.to;
  if (is_leased(change.to)) {
    worker.lease_owner = change.lease_owner;
    worker.lease_expires_at = now + change.lease_ms;
    worker.heartbeat_at = now;
  } else {
    worker.lease_owner.clear();
    worker.lease_expires_at.reset();
  }
  if (change.final_revision) worker.final_revision = *change.final_revision;
  if (change.changed_files) worker.changed_files = *change.changed_files;
  if (change.to == WorkerState::kHold) worker.hold_reason = reason;
  if (change.to == WorkerState::kFailed) worker.failure_reason = reason;
  worker.updated_at = now;
  if (is_final(change.to)) worker.finished_at = now;
  return worker;
}

}  // namespace

Result<Worker> SqlStore::create_worker(const Worker& given, TimeMs caller_now) {
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  Worker worker = given;
  worker.id = new_id(*clocked);
  worker.state = WorkerState::kPlanned;
  worker.lease_owner.clear();
  worker.lease_expires_at.reset();
  worker.heartbeat_at.reset();
  worker.finished_at.reset();
  worker.created_at = worker.updated_at = *clocked;
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  if (auto inserted = sql::insert_worker(*db_, worker); !inserted) return inserted.error();
  if (db_->changes() != 1) {
    auto existing = find_worker(worker.workflow_run_id, worker.step_id);
    if (!existing) return existing.error();
    if (!existing->has_value()) {
      return conflict_error("the worktree " + worker.worktree_path + " belongs to another worker");
    }
    return std::move(**existing);
  }
  WorkerEvent event{worker.id, 0, "", "planned", "", "{}", *clocked};
  if (auto written = sql::insert_worker_event(*db_, event); !written) return written.error();
  if (auto committed = (*transaction)->commit(); !committed) return committed.error();
  return worker;
}

Result<std::optional<Worker>> SqlStore::get_worker(const std::string& id) {
  return first_worker(*db_, "WHERE id = ?1", [&](sql::Statement& s) { s.bind(1, id); });
}

Result<std::optional<Worker>> SqlStore::find_worker(const std::string& workflow_run_id,
                                                    const std::string& step_id) {
  return first_worker(*db_, "WHERE workflow_run_id = ?1 AND step_id = ?2",
                      [&](sql::Statement& s) { s.bind(1, workflow_run_id).bind(2, step_id); });
}

Result<Worker> SqlStore::resolve_worker(const std::string& text) {
  auto id =
      sql::resolve_id_prefix(*db_, "workers", text, {"worker", "workers", "orrery worker ls"});
  if (!id) return id.error();
  auto worker = get_worker(*id);
  if (!worker) return worker.error();
  if (!worker->has_value()) return not_found_error("worker " + *id + " is gone");
  return std::move(**worker);
}

namespace {

// The workers a filter selects (its state, repository and run), as ?1-?3.
constexpr const char* kWorkerFilterWhere =
    "WHERE (?1 = '' OR state = ?1) AND (?2 = '' OR repo = ?2) AND "
    "(?3 = '' OR workflow_run_id = ?3)";

void bind_worker_filter(sql::Statement& s, const WorkerFilter& filter) {
  s.bind(1, filter.state ? worker_state_name(*filter.state) : "")
      .bind(2, filter.repo)
      .bind(3, filter.workflow_run_id);
}

}  // namespace

Result<std::vector<Worker>> SqlStore::list_workers(const WorkerFilter& filter) {
  return sql::query_workers(
      *db_,
      std::string(kWorkerFilterWhere) + " ORDER BY created_at DESC, id DESC LIMIT ?4 OFFSET ?5",
      [&](sql::Statement& s) {
        bind_worker_filter(s, filter);
        s.bind(4, std::clamp(filter.limit, 1, 10000)).bind(5, std::max(filter.offset, 0));
      });
}

Result<std::int64_t> SqlStore::count_workers(const WorkerFilter& filter) {
  return sql::count_rows(*db_, std::string("SELECT COUNT(*) FROM workers ") + kWorkerFilterWhere,
                         [&](sql::Statement& s) { bind_worker_filter(s, filter); });
}

Result<std::vector<WorkerEvent>> SqlStore::worker_events(const std::string& id) {
  return sql::query_worker_events(*db_, id);
}

Result<Worker> SqlStore::change_worker(const WorkerChange& change, TimeMs caller_now) {
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  auto after = change_worker_in_transaction(change, *clocked);
  if (!after) return after.error();
  if (auto committed = (*transaction)->commit(); !committed) return committed.error();
  return after;
}

Result<Worker> SqlStore::change_worker_in_transaction(const WorkerChange& change, TimeMs now) {
  if (is_leased(change.to) && (change.lease_owner.empty() || change.lease_ms <= 0)) {
    return internal_error("a change into " + std::string(worker_state_name(change.to)) +
                          " needs a lease owner and a positive lease");
  }
  auto read =
      first_worker(*db_, "WHERE id = ?1" + std::string(db_->row_lock(sql::RowLock::kUpdate)),
                   [&](sql::Statement& s) { s.bind(1, change.worker_id); });
  if (!read) return read.error();
  if (!read->has_value()) return not_found_error("no worker has the id '" + change.worker_id + "'");
  const Worker& before = **read;
  if (before.state != change.from) {
    if (auto legal = check_worker_transition(before.id, before.state, change.to); !legal)
      return legal.error();
    return conflict_error("worker " + before.id + " is " + worker_state_name(before.state) +
                          ", not " + worker_state_name(change.from) + "; it changed meanwhile");
  }
  if (auto legal = check_worker_transition(before.id, change.from, change.to); !legal)
    return legal.error();
  if (change.expected_owner && before.lease_owner != *change.expected_owner) {
    return conflict_error("worker " + before.id + " is held by " +
                          (before.lease_owner.empty() ? "nobody" : before.lease_owner) + ", not " +
                          *change.expected_owner + "; its lease was lost");
  }
  const std::string reason = shortened(storable_text(change.reason), kMaxReasonCharacters);
  Worker after = changed(before, change, reason, now);
  if (auto written = write_change(*db_, change, after, before.lease_owner); !written)
    return written.error();
  WorkerEvent event{after.id,
                    0,
                    worker_state_name(change.from),
                    worker_state_name(change.to),
                    reason,
                    change.payload_json,
                    now};
  if (auto appended = sql::insert_worker_event(*db_, event); !appended) return appended.error();
  return after;
}

Status SqlStore::heartbeat_worker(const std::string& id, const std::string& owner,
                                  DurationMs lease_ms, TimeMs caller_now) {
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  auto update = db_->prepare(
      "UPDATE workers SET heartbeat_at = ?3, lease_expires_at = ?4, updated_at = ?3 "
      "WHERE id = ?1 AND lease_owner = ?2 AND state IN ('leased', 'starting', 'running', "
      "'verifying', 'merge_ready')");
  if (!update) return update.error();
  (*update)->bind(1, id).bind(2, owner).bind(3, *clocked).bind(4, *clocked + lease_ms);
  if (auto status = (*update)->run(); !status) return status;
  if (db_->changes() != 1) {
    return conflict_error("worker " + id + " is no longer held by " + owner +
                          "; its lease was lost");
  }
  return Ok{};
}

}  // namespace orrery
