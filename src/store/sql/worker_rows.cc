#include "store/sql/worker_rows.h"

#include "core/json_text_list.h"

namespace orrery::sql {
namespace {

constexpr const char* kWorkerColumns =
    "id, workflow_run_id, step_id, repo, branch, worktree_path, host, state, base_revision, "
    "base_branch, final_revision, lease_owner, lease_expires_at, heartbeat_at, hold_reason, "
    "failure_reason, changed_files_json, allowed_files_json, created_at, updated_at, finished_at";

constexpr const char* kEntryColumns =
    "id, worker_id, repo, target, state, priority, strategy, base_revision, parent_revision, "
    "candidate_revision, merge_commit, verify_command, verify_exit_code, verify_duration_ms, "
    "verify_output_tail, verified_tree, reason, conflict_files_json, driver, lease_expires_at, "
    "queued_at, created_at, updated_at, finished_at";

Error damaged(const char* what, const std::string& id, const std::string& why) {
  return internal_error(std::string(what) + " " + id + " is damaged in the database: " + why);
}

Result<Worker> read_worker(const Statement& row) {
  Worker worker;
  worker.id = row.text(0);
  worker.workflow_run_id = row.text(1);
  worker.step_id = row.text(2);
  worker.repo = row.text(3);
  worker.branch = row.text(4);
  worker.worktree_path = row.text(5);
  worker.host = row.text(6);
  auto state = parse_worker_state(row.text(7));
  if (!state) return damaged("worker", worker.id, state.error().message);
  worker.state = *state;
  worker.base_revision = row.text(8);
  worker.base_branch = row.text(9);
  worker.final_revision = row.text(10);
  worker.lease_owner = row.text(11);
  worker.lease_expires_at = row.optional_int64(12);
  worker.heartbeat_at = row.optional_int64(13);
  worker.hold_reason = row.text(14);
  worker.failure_reason = row.text(15);
  auto changed = text_list_from_json(row.text(16));
  auto allowed = text_list_from_json(row.text(17));
  if (!changed || !allowed) return damaged("worker", worker.id, "a file list does not parse");
  worker.changed_files = std::move(*changed);
  worker.allowed_files = std::move(*allowed);
  worker.created_at = row.int64(18);
  worker.updated_at = row.int64(19);
  worker.finished_at = row.optional_int64(20);
  return worker;
}

Result<MergeEntry> read_entry(const Statement& row) {
  MergeEntry entry;
  entry.id = row.text(0);
  entry.worker_id = row.text(1);
  entry.repo = row.text(2);
  entry.target = row.text(3);
  auto state = parse_merge_state(row.text(4));
  if (!state) return damaged("queue entry", entry.id, state.error().message);
  entry.state = *state;
  entry.priority = int(row.int64(5));
  if (!row.text(6).empty()) {
    auto strategy = parse_merge_strategy(row.text(6));
    if (!strategy) return damaged("queue entry", entry.id, strategy.error().message);
    entry.strategy = *strategy;
  }
  entry.base_revision = row.text(7);
  entry.parent_revision = row.text(8);
  entry.candidate_revision = row.text(9);
  entry.merge_commit = row.text(10);
  entry.verify.command = row.text(11);
  if (auto code = row.optional_int64(12)) entry.verify.exit_code = int(*code);
  entry.verify.duration_ms = row.optional_int64(13);
  entry.verify.output_tail = row.text(14);
  entry.verify.tree = row.text(15);
  entry.reason = row.text(16);
  entry.conflict_files_json = row.text(17);
  entry.driver = row.text(18);
  entry.lease_expires_at = row.optional_int64(19);
  entry.queued_at = row.int64(20);
  entry.created_at = row.int64(21);
  entry.updated_at = row.int64(22);
  entry.finished_at = row.optional_int64(23);
  return entry;
}

}  // namespace

Result<std::vector<Worker>> query_workers(Connection& db, const std::string& where,
                                          const Bind& bind) {
  std::string text("SELECT ");
  text += kWorkerColumns;
  text += " FROM workers ";
  text += where;
  auto query = db.prepare(text);
  if (!query) return query.error();
  bind(**query);
  std::vector<Worker> workers;
  while (true) {
    auto row = (*query)->step();
    if (!row) return row.error();
    if (!*row) break;
    auto worker = read_worker(**query);
    if (!worker) return worker.error();
    workers.push_back(std::move(*worker));
  }
  return workers;
}

Status insert_worker(Connection& db, const Worker& w) {
  std::string text("INSERT INTO workers (");
  text += kWorkerColumns;
  text +=
      ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
      "?18, ?19, ?20, ?21) ON CONFLICT DO NOTHING";
  auto insert = db.prepare(text);
  if (!insert) return insert.error();
  (*insert)
      ->bind(1, w.id)
      .bind(2, w.workflow_run_id)
      .bind(3, w.step_id)
      .bind(4, w.repo)
      .bind(5, w.branch)
      .bind(6, w.worktree_path)
      .bind(7, w.host)
      .bind(8, worker_state_name(w.state))
      .bind(9, w.base_revision)
      .bind(10, w.base_branch)
      .bind(11, w.final_revision)
      .bind(12, w.lease_owner)
      .bind(13, w.lease_expires_at)
      .bind(14, w.heartbeat_at)
      .bind(15, w.hold_reason)
      .bind(16, w.failure_reason)
      .bind(17, text_list_json(w.changed_files))
      .bind(18, text_list_json(w.allowed_files))
      .bind(19, w.created_at)
      .bind(20, w.updated_at)
      .bind(21, w.finished_at);
  return (*insert)->run();
}

Status insert_worker_event(Connection& db, const WorkerEvent& event) {
  auto insert = db.prepare(
      "INSERT INTO worker_events (worker_id, sequence, from_state, to_state, reason, "
      "payload_json, created_at) SELECT ?1, COALESCE(MAX(sequence), 0) + 1, ?2, ?3, ?4, ?5, ?6 "
      "FROM worker_events WHERE worker_id = ?1");
  if (!insert) return insert.error();
  (*insert)
      ->bind(1, event.worker_id)
      .bind(2, event.from_state)
      .bind(3, event.to_state)
      .bind(4, event.reason)
      .bind(5, event.payload_json)
      .bind(6, event.created_at);
  if (auto status = (*insert)->run(); !status) return status;
  if (db.changes() != 1) return internal_error("worker " + event.worker_id + ": event not written");
  return Ok{};
}

Result<std::vector<WorkerEvent>> query_worker_events(Connection& db, const std::string& worker_id) {
  auto query = db.prepare(
      "SELECT worker_id, sequence, from_state, to_state, reason, payload_json, created_at "
      "FROM worker_events WHERE worker_id = ?1 ORDER BY sequence");
  if (!query) return query.error();
  (*query)->bind(1, worker_id);
  std::vector<WorkerEvent> events;
  while (true) {
    auto row = (*query)->step();
    if (!row) return row.error();
    if (!*row) break;
    WorkerEvent event;
    event.worker_id = (*query)->text(0);
    event.sequence = (*query)->int64(1);
    event.from_state = (*query)->text(2);
    event.to_state = (*query)->text(3);
    event.reason = (*query)->text(4);
    event.payload_json = (*query)->text(5);
    event.created_at = (*query)->int64(6);
    events.push_back(std::move(event));
  }
  return events;
}

Result<std::vector<MergeEntry>> query_merge_entries(Connection& db, const std::string& where,
                                                    const Bind& bind) {
  std::string text("SELECT ");
  text += kEntryColumns;
  text += " FROM merge_entries ";
  text += where;
  auto query = db.prepare(text);
  if (!query) return query.error();
  bind(**query);
  std::vector<MergeEntry> entries;
  while (true) {
    auto row = (*query)->step();
    if (!row) return row.error();
    if (!*row) break;
    auto entry = read_entry(**query);
    if (!entry) return entry.error();
    entries.push_back(std::move(*entry));
  }
  return entries;
}

Status insert_merge_entry(Connection& db, const MergeEntry& e) {
  std::string text("INSERT INTO merge_entries (");
  text += kEntryColumns;
  text +=
      ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
      "?18, ?19, ?20, ?21, ?22, ?23, ?24) ON CONFLICT DO NOTHING";
  auto insert = db.prepare(text);
  if (!insert) return insert.error();
  (*insert)
      ->bind(1, e.id)
      .bind(2, e.worker_id)
      .bind(3, e.repo)
      .bind(4, e.target)
      .bind(5, merge_state_name(e.state))
      .bind(6, e.priority)
      .bind(7, e.strategy ? merge_strategy_name(*e.strategy) : "")
      .bind(8, e.base_revision)
      .bind(9, e.parent_revision)
      .bind(10, e.candidate_revision)
      .bind(11, e.merge_commit)
      .bind(12, e.verify.command)
      .bind(13, e.verify.exit_code)
      .bind(14, e.verify.duration_ms)
      .bind(15, e.verify.output_tail)
      .bind(16, e.verify.tree)
      .bind(17, e.reason)
      .bind(18, e.conflict_files_json)
      .bind(19, e.driver)
      .bind(20, e.lease_expires_at)
      .bind(21, e.queued_at)
      .bind(22, e.created_at)
      .bind(23, e.updated_at)
      .bind(24, e.finished_at);
  return (*insert)->run();
}

}  // namespace orrery::sql
