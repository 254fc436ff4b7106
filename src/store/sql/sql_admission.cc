// SqlStore: admission of work items by the scheduling daemon
// (docs/admission.md, "Admission") — reading the queue, admitting within
// every limit, linking each admission to the workflow run it starts, and
// settling items whose runs have ended. Every write is fenced by the
// daemon lease and guarded on the status it read.
#include <algorithm>

#include "core/text.h"
#include "store/sql/item_reads.h"
#include "store/sql/sql_store.h"
#include "store/sql/work_queue_rows.h"
#include "store/sql/worker_rows.h"

namespace orrery {
namespace {

using sql::query_items;

constexpr const char* kEntryColumns =
    "i.id, i.item_key, i.route_id, i.project, i.item_group, i.status, i.priority, i.queued_at, "
    "i.next_attempt_at";

Result<std::vector<QueueEntry>> read_entries(sql::Statement& query) {
  std::vector<QueueEntry> entries;
  while (true) {
    auto row = query.step();
    if (!row) return row.error();
    if (!*row) return entries;
    QueueEntry entry;
    entry.id = query.text(0);
    entry.key = query.text(1);
    entry.route_id = query.text(2);
    entry.project = query.text(3);
    entry.group = query.text(4);
    auto status = parse_item_status(query.text(5));
    if (!status) return internal_error("a stored work item has " + status.error().message);
    entry.status = *status;
    entry.priority = query.int64(6);
    entry.queued_at = query.int64(7);
    entry.next_attempt_at = query.optional_int64(8);
    entries.push_back(std::move(entry));
  }
}

Result<std::vector<QueueEntry>> queue_entries(sql::Connection& db, const std::string& statuses) {
  auto query = db.prepare(std::string("SELECT ") + kEntryColumns +
                          " FROM work_items i WHERE i.status IN (" + statuses + ")");
  if (!query) return query.error();
  return read_entries(**query);
}

// min(a, b) in the SQL both dialects accept.
std::string sql_min(const std::string& a, const std::string& b) {
  return "CASE WHEN " + a + " < " + b + " THEN " + a + " ELSE " + b + " END";
}

// core/work_item.h effective_priority at ?1, of a stored (so in range)
// priority: raised by one every priority_aging_ms, capped.
std::string effective_priority_sql() {
  const std::string cap = std::to_string(kMaxEffectivePriority);
  const std::string raised = "((?1 - i.queued_at) / r.priority_aging_ms)";
  return "CASE WHEN r.priority_aging_ms > 0 AND ?1 > i.queued_at THEN " +
         sql_min("(i.priority + " + sql_min(raised, cap) + ")", cap) + " ELSE i.priority END";
}

// What a candidate's project or group (`column`) must not be: in the JSON
// array ?N of names full everywhere, nor — when the array ?N+1 of
// "ROUTE/NAME" pairs is not empty — one of those.
std::string not_full(const sql::Connection& db, const std::string& column, int parameter) {
  const std::string pairs = std::string("?") + std::to_string(parameter + 1);
  return "(i." + column + " = '' OR (i." + column + " NOT IN (" + db.json_text_elements(parameter) +
         ") AND (" + pairs + " = '[]' OR i.route_id || '/' || i." + column + " NOT IN (" +
         db.json_text_elements(parameter + 1) + "))))";
}

// The daemon's candidates (AdmissionRead): ?1 the time (for the effective
// priority; a queued item's retry, if it had one, is due: the plan checks
// it all the same); JSON arrays of the
// full limits (core/admission_plan.h FullLimits): ?2 routes, ?3 projects,
// ?4 route/project pairs, ?5 groups, ?6 route/group pairs; ?7 the limit.
// Each array is a set the database builds once: a row costs a lookup in it,
// and nothing of a row that fails crosses to the process.
std::string admissible_candidates_sql(const sql::Connection& db) {
  return std::string("SELECT ") + kEntryColumns + " FROM work_items i " +
         db.index_hint("work_items_queued") +
         "JOIN routes r ON r.id = i.route_id "
         "WHERE i.status = 'queued' AND i.route_id NOT IN (" +
         db.json_text_elements(2) + ") AND " + not_full(db, "project", 3) + " AND " +
         not_full(db, "item_group", 5) + " ORDER BY " + effective_priority_sql() +
         " DESC, i.queued_at, i.item_key, i.route_id LIMIT ?7";
}

std::string json_array(const std::vector<std::string>& texts) {
  std::string array = "[";
  for (const std::string& text : texts) {
    if (array.size() > 1) array += ",";
    array += json_quote(text);
  }
  array += "]";
  return array;
}

// The guard of one admission: the item queued on an active route and every
// limit of that route (and the global cap at ?3) still below its value.
constexpr const char* kAdmitItem =
    "UPDATE work_items SET status = 'admitted', attempts = attempts + 1, "
    "admissions = admissions + 1, next_attempt_at = NULL, "
    "updated_at = ?2 WHERE id = ?1 AND status = 'queued' AND EXISTS (SELECT 1 FROM routes r "
    "WHERE r.id = work_items.route_id AND r.status = 'active' "
    "AND (SELECT COUNT(*) FROM work_items h WHERE h.route_id = r.id "
    "AND h.status IN ('admitted', 'running')) < r.max_running "
    "AND (r.max_per_project = 0 OR work_items.project = '' OR (SELECT COUNT(*) FROM work_items h "
    "WHERE h.project = work_items.project AND h.status IN ('admitted', 'running')) "
    "< r.max_per_project) "
    "AND (r.max_per_group = 0 OR work_items.item_group = '' OR (SELECT COUNT(*) FROM work_items h "
    "WHERE h.item_group = work_items.item_group AND h.status IN ('admitted', 'running')) "
    "< r.max_per_group)) "
    "AND (?3 = 0 OR (SELECT COUNT(*) FROM work_items h WHERE h.status IN ('admitted', 'running')) "
    "< ?3)";

}  // namespace

Result<AdmissionQueue> SqlStore::read_admission_queue(const AdmissionRead& read,
                                                      const Fence& fence) {
  auto now = clock(read.now);
  if (!now) return now.error();
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  if (auto fenced = check_fence_at(fence, *now); !fenced) return fenced.error();
  // Failed items whose retry is due wait in the queue again (their retry
  // time stays in next_attempt_at until they are admitted).
  auto due = db_->prepare(
      "UPDATE work_items SET status = CASE WHEN EXISTS (SELECT 1 FROM routes r WHERE "
      "r.id = work_items.route_id AND r.status = 'paused') THEN 'deferred' ELSE 'queued' END, "
      "updated_at = ?1 WHERE status = 'failed' AND next_attempt_at <= ?1");
  if (!due) return due.error();
  (*due)->bind(1, *now);
  if (auto status = (*due)->run(); !status) return status.error();
  AdmissionQueue queue;
  auto routes = list_routes();
  if (!routes) return routes.error();
  queue.routes = std::move(*routes);
  auto holding = queue_entries(*db_, sql::kHoldingItemStatuses);
  if (!holding) return holding.error();
  queue.holding = std::move(*holding);
  std::vector<RouteLimits> limits;
  for (const Route& route : queue.routes) {
    limits.push_back(route_limits(route));
    const auto& held = read.held_routes;
    if (std::find(held.begin(), held.end(), route.id) != held.end()) limits.back().held_by = "held";
  }
  const FullLimits full = full_limits(limits, queue.holding, read.global_max_running);
  if (full.routes.size() < queue.routes.size() && read.limit > 0) {
    auto query = db_->prepare(admissible_candidates_sql(*db_));
    if (!query) return query.error();
    (*query)
        ->bind(1, *now)
        .bind(2, json_array(full.routes))
        .bind(3, json_array(full.projects))
        .bind(4, json_array(full.route_projects))
        .bind(5, json_array(full.groups))
        .bind(6, json_array(full.route_groups))
        .bind(7, read.limit);
    auto candidates = read_entries(**query);
    if (!candidates) return candidates.error();
    queue.candidates = std::move(*candidates);
    queue.more = std::int64_t(queue.candidates.size()) >= read.limit;
  }
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return queue;
}

// Outside a transaction (a read-only store cannot begin one): each part is
// read by its own statement, which is enough for showing what holds an item.
Result<AdmissionQueue> SqlStore::admission_snapshot() { return read_queue(); }

Result<AdmissionQueue> SqlStore::read_queue() {
  AdmissionQueue queue;
  auto routes = list_routes();
  if (!routes) return routes.error();
  queue.routes = std::move(*routes);
  auto candidates = queue_entries(*db_, "'queued', 'deferred', 'failed'");
  if (!candidates) return candidates.error();
  queue.candidates = std::move(*candidates);
  auto holding = queue_entries(*db_, sql::kHoldingItemStatuses);
  if (!holding) return holding.error();
  queue.holding = std::move(*holding);
  return queue;
}

Result<std::vector<WorkItem>> SqlStore::admit_items(const std::vector<std::string>& ids,
                                                    int global_max_running, TimeMs caller_now,
                                                    const Fence& fence) {
  std::vector<WorkItem> admitted;
  if (ids.empty()) return admitted;
  auto now = clock(caller_now);
  if (!now) return now.error();
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  if (auto fenced = check_fence_at(fence, *now); !fenced) return fenced.error();
  // Every route locked, in id order: admitters take turns, so that the
  // counts each guard reads are not overtaken (PostgreSQL's READ COMMITTED).
  {
    auto lock = db_->prepare("SELECT id FROM routes ORDER BY id" +
                             std::string(db_->row_lock(sql::RowLock::kUpdate)));
    if (!lock) return lock.error();
    if (auto status = (*lock)->run(); !status) return status.error();
  }
  std::vector<std::string> won;
  for (const std::string& id : ids) {
    auto admit = db_->prepare(kAdmitItem);
    if (!admit) return admit.error();
    (*admit)->bind(1, id).bind(2, *now).bind(3, global_max_running);
    if (auto status = (*admit)->run(); !status) return status.error();
    if (db_->changes() == 1) won.push_back(id);  // else its guard failed: it waits
  }
  auto read = sql::read_items_by_id(*db_, won);
  if (!read) return read.error();
  if (auto status = (*transaction)->commit(); !status) return status.error();
  for (const std::string& id : won) {
    auto found = read->find(id);
    if (found != read->end()) admitted.push_back(std::move(found->second));
  }
  return admitted;
}

Result<std::vector<WorkItem>> SqlStore::admitted_items(int limit) {
  return query_items(*db_, "WHERE i.status = 'admitted' ORDER BY i.updated_at, i.id LIMIT ?1",
                     [&](sql::Statement& s) { s.bind(1, limit); });
}

Status SqlStore::start_item(const std::string& id, const std::string& workflow_run_id,
                            TimeMs caller_now, const Fence& fence) {
  auto now = clock(caller_now);
  if (!now) return now.error();
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  if (auto fenced = check_fence_at(fence, *now); !fenced) return fenced.error();
  auto write = db_->prepare(
      "UPDATE work_items SET status = 'running', workflow_run_id = ?2, updated_at = ?3 "
      "WHERE id = ?1 AND status = 'admitted'");
  if (!write) return write.error();
  (*write)->bind(1, id).bind(2, workflow_run_id).bind(3, *now);
  if (auto status = (*write)->run(); !status) return status.error();
  if (db_->changes() != 1) {
    return conflict_error("work item " + id + " is no longer admitted (cancelled meanwhile?)");
  }
  return (*transaction)->commit();
}

Result<WorkItem> SqlStore::return_item(const std::string& id, const std::string& reason,
                                       TimeMs caller_now, const Fence& fence) {
  auto now = clock(caller_now);
  if (!now) return now.error();
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  if (auto fenced = check_fence_at(fence, *now); !fenced) return fenced.error();
  auto found = query_items(*db_, "WHERE i.id = ?1", [&](sql::Statement& s) { s.bind(1, id); });
  if (!found) return found.error();
  if (found->empty()) return not_found_error("no work item has the id '" + id + "'");
  const WorkItem& item = found->front();
  if (item.status != ItemStatus::kAdmitted) {
    return conflict_error("work item " + id + " is " + item_status_name(item.status) +
                          ", not admitted");
  }
  const bool free = item.free_returns < kMaxFreeReturns;
  auto write = db_->prepare(
      "UPDATE work_items SET status = ?2, attempts = attempts - ?3, free_returns = free_returns + "
      "?3, last_reason = ?4, updated_at = ?5 WHERE id = ?1 AND status = 'admitted'");
  if (!write) return write.error();
  (*write)
      ->bind(1, id)
      .bind(2, free ? "queued" : "dead_letter")
      .bind(3, free ? 1 : 0)
      .bind(4, append_reason(item.last_reason, reason))
      .bind(5, *now);
  if (auto status = (*write)->run(); !status) return status.error();
  if (db_->changes() != 1) return conflict_error("work item " + id + " changed; try again");
  auto after = query_items(*db_, "WHERE i.id = ?1", [&](sql::Statement& s) { s.bind(1, id); });
  if (!after) return after.error();
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return std::move(after->front());
}

namespace {

// The workers of a workflow run, each with its merge entry (a worker has at
// most one).
Result<std::vector<AttemptChange>> attempt_changes(sql::Connection& db,
                                                   const std::string& workflow_run_id) {
  auto workers = sql::query_workers(db, "WHERE workflow_run_id = ?1 ORDER BY created_at, id",
                                    [&](sql::Statement& s) { s.bind(1, workflow_run_id); });
  if (!workers) return workers.error();
  auto entries = sql::query_merge_entries(
      db,
      "WHERE worker_id IN (SELECT id FROM workers WHERE workflow_run_id = ?1) ORDER BY "
      "created_at, id",
      [&](sql::Statement& s) { s.bind(1, workflow_run_id); });
  if (!entries) return entries.error();
  std::vector<AttemptChange> changes;
  for (Worker& worker : *workers) {
    AttemptChange change;
    for (const MergeEntry& entry : *entries)
      if (entry.worker_id == worker.id) change.entry = entry;
    change.worker = std::move(worker);
    changes.push_back(std::move(change));
  }
  return changes;
}

}  // namespace

Result<std::vector<FinishedItemRun>> SqlStore::finished_item_runs(int limit) {
  auto query = db_->prepare(
      "SELECT " + sql::item_select_list() + ", w.status, w.error" + sql::item_from_clause() +
      "JOIN workflow_runs w ON w.id = i.workflow_run_id WHERE i.status = 'running' AND "
      "w.status IN ('succeeded', 'failed', 'cancelled') AND NOT EXISTS (SELECT 1 FROM workers k "
      "JOIN merge_entries m ON m.worker_id = k.id WHERE k.workflow_run_id = w.id AND "
      "m.state IN ('waiting', 'ready')) ORDER BY w.finished_at, i.id LIMIT ?1");
  if (!query) return query.error();
  (*query)->bind(1, limit);
  std::vector<FinishedItemRun> finished;
  const int first_extra = sql::item_column_count();
  while (true) {
    auto row = (*query)->step();
    if (!row) return row.error();
    if (!*row) break;
    auto item = sql::read_item(**query);
    if (!item) return item.error();
    auto status = parse_workflow_run_status((*query)->text(first_extra));
    if (!status) return internal_error("a stored workflow run has " + status.error().message);
    FinishedItemRun end;
    end.item = std::move(*item);
    end.run_status = *status;
    end.run_error = (*query)->text(first_extra + 1);
    finished.push_back(std::move(end));
  }
  for (FinishedItemRun& end : finished) {
    auto route = get_route(end.item.route_id);
    if (!route) return route.error();
    if (*route) end.route = std::move(**route);
    auto changes = attempt_changes(*db_, end.item.workflow_run_id);
    if (!changes) return changes.error();
    end.changes = std::move(*changes);
  }
  return finished;
}

Status SqlStore::settle_item(const ItemSettlement& settlement, TimeMs caller_now,
                             const Fence& fence) {
  auto now = clock(caller_now);
  if (!now) return now.error();
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  if (auto fenced = check_fence_at(fence, *now); !fenced) return fenced.error();
  auto write = db_->prepare(
      "UPDATE work_items SET status = ?3, next_attempt_at = ?4, "
      "last_reason = CASE WHEN last_reason = '' THEN ?5 WHEN ?5 = '' THEN last_reason "
      "ELSE last_reason || '; ' || ?5 END, updated_at = ?6, "
      "feedback_json = CASE WHEN ?7 = 1 THEN ?8 ELSE feedback_json END "
      "WHERE id = ?1 AND workflow_run_id = ?2 AND status = 'running' AND NOT EXISTS (SELECT 1 "
      "FROM workers k JOIN merge_entries m ON m.worker_id = k.id WHERE k.workflow_run_id = ?2 "
      "AND m.state IN ('waiting', 'ready'))");
  if (!write) return write.error();
  (*write)
      ->bind(1, settlement.item_id)
      .bind(2, settlement.workflow_run_id)
      .bind(3, item_status_name(settlement.status))
      .bind(4, settlement.next_attempt_at)
      .bind(5, settlement.reason)
      .bind(6, *now)
      .bind(7, settlement.feedback_json ? 1 : 0)
      .bind(8, settlement.feedback_json.value_or(""));
  if (auto status = (*write)->run(); !status) return status.error();
  if (db_->changes() != 1) {
    return conflict_error("work item " + settlement.item_id + " no longer runs workflow run " +
                          settlement.workflow_run_id +
                          ", or a change of that run is in the merge "
                          "queue again");
  }
  return (*transaction)->commit();
}

}  // namespace orrery
