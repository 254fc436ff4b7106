// SqlStore: the merge queue (store/merge_queue.h). An entry and its worker
// change in one transaction, each guarded and its row count checked; a
// queue's driver lease is one row per (repository, target branch).
#include <algorithm>

#include "core/text.h"
#include "store/sql/id_prefix.h"
#include "store/sql/rows.h"
#include "store/sql/sql_store.h"
#include "store/sql/worker_rows.h"

namespace orrery {
namespace {

constexpr size_t kMaxReasonCharacters = 1000;
constexpr size_t kMaxTailBytes = 16 * 1024;

Result<std::optional<MergeEntry>> first_entry(sql::Connection& db, const std::string& where,
                                              const sql::Bind& bind) {
  auto entries = sql::query_merge_entries(db, where, bind);
  if (!entries) return entries.error();
  if (entries->empty()) return std::optional<MergeEntry>{};
  return std::optional<MergeEntry>{std::move(entries->front())};
}

MergeEntry changed(MergeEntry entry, const MergeChange& change, TimeMs now) {
  entry.state = change.to;
  if (change.parent_revision) entry.parent_revision = *change.parent_revision;
  if (change.candidate_revision) entry.candidate_revision = *change.candidate_revision;
  if (change.merge_commit) entry.merge_commit = *change.merge_commit;
  if (change.verify) {
    entry.verify = *change.verify;
    std::string& tail = entry.verify.output_tail;
    if (tail.size() > kMaxTailBytes) tail.erase(0, tail.size() - kMaxTailBytes);
    tail = storable_text(tail);  // also mends a character the cut split
  }
  if (change.conflict_files_json) entry.conflict_files_json = *change.conflict_files_json;
  if (!change.reason.empty())
    entry.reason = shortened(storable_text(change.reason), kMaxReasonCharacters);
  entry.driver = change.to == MergeState::kReady ? change.driver : std::string();
  entry.lease_expires_at.reset();  // the queue's lease (queue_leases) is the one that counts
  if (change.to == MergeState::kWaiting) {
    entry.queued_at = now;  // a retry arrives again, at the end
    entry.conflict_files_json = "[]";
  }
  // A commit is kept only by a merge, or by a ready entry about to merge.
  if (change.to != MergeState::kMerged && change.to != MergeState::kReady)
    entry.merge_commit.clear();
  entry.updated_at = now;
  entry.finished_at = change.to == MergeState::kMerged ? std::optional<TimeMs>(now) : std::nullopt;
  return entry;
}

Status write_entry(sql::Connection& db, const MergeEntry& after, MergeState from,
                   const std::string& read_driver) {
  auto update = db.prepare(
      "UPDATE merge_entries SET state = ?3, parent_revision = ?4, candidate_revision = ?5, "
      "merge_commit = ?6, verify_command = ?7, verify_exit_code = ?8, verify_duration_ms = ?9, "
      "verify_output_tail = ?10, verified_tree = ?11, reason = ?12, conflict_files_json = ?13, "
      "driver = ?14, lease_expires_at = ?15, queued_at = ?16, updated_at = ?17, "
      "finished_at = ?18 WHERE id = ?1 AND state = ?2 AND driver = ?19");
  if (!update) return update.error();
  (*update)
      ->bind(1, after.id)
      .bind(2, merge_state_name(from))
      .bind(3, merge_state_name(after.state))
      .bind(4, after.parent_revision)
      .bind(5, after.candidate_revision)
      .bind(6, after.merge_commit)
      .bind(7, after.verify.command)
      .bind(8, after.verify.exit_code)
      .bind(9, after.verify.duration_ms)
      .bind(10, after.verify.output_tail)
      .bind(11, after.verify.tree)
      .bind(12, after.reason)
      .bind(13, after.conflict_files_json)
      .bind(14, after.driver)
      .bind(15, after.lease_expires_at)
      .bind(16, after.queued_at)
      .bind(17, after.updated_at)
      .bind(18, after.finished_at)
      .bind(19, read_driver);
  if (auto status = (*update)->run(); !status) return status;
  if (db.changes() != 1) {
    return conflict_error("queue entry " + after.id +
                          " changed while it was being updated; try again");
  }
  return Ok{};
}

}  // namespace

Status SqlStore::configure_queue(const QueueConfig& config, TimeMs caller_now) {
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  auto upsert = db_->prepare(
      "INSERT INTO queue_configs (repo, target, verify, strategy, updated_at) "
      "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (repo) DO UPDATE SET target = ?2, verify = ?3, "
      "strategy = ?4, updated_at = ?5");
  if (!upsert) return upsert.error();
  (*upsert)
      ->bind(1, config.repo)
      .bind(2, config.target)
      .bind(3, config.verify)
      .bind(4, merge_strategy_name(config.strategy))
      .bind(5, *clocked);
  return (*upsert)->run();
}

Result<std::optional<QueueConfig>> SqlStore::queue_config(const std::string& repo) {
  auto query = db_->prepare(
      "SELECT repo, target, verify, strategy, updated_at FROM queue_configs WHERE repo = ?1");
  if (!query) return query.error();
  (*query)->bind(1, repo);
  auto row = (*query)->step();
  if (!row) return row.error();
  if (!*row) return std::optional<QueueConfig>{};
  QueueConfig config;
  config.repo = (*query)->text(0);
  config.target = (*query)->text(1);
  config.verify = (*query)->text(2);
  auto strategy = parse_merge_strategy((*query)->text(3));
  if (!strategy) {
    return internal_error("the queue settings of " + repo +
                          " are damaged in the database: " + strategy.error().message);
  }
  config.strategy = *strategy;
  config.updated_at = (*query)->int64(4);
  return std::optional<QueueConfig>{config};
}

Result<MergeEntry> SqlStore::enqueue_merge(const MergeEntry& given, TimeMs caller_now) {
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  auto worker =
      sql::query_workers(*db_, "WHERE id = ?1" + std::string(db_->row_lock(sql::RowLock::kShare)),
                         [&](sql::Statement& s) { s.bind(1, given.worker_id); });
  if (!worker) return worker.error();
  if (worker->empty()) return not_found_error("no worker has the id '" + given.worker_id + "'");
  if (worker->front().state != WorkerState::kReported) {
    return conflict_error("worker " + given.worker_id + " is " +
                          worker_state_name(worker->front().state) +
                          "; only a reported worker enters the merge queue");
  }
  MergeEntry entry = given;
  entry.id = new_id(*clocked);
  entry.state = MergeState::kWaiting;
  entry.driver.clear();
  entry.lease_expires_at.reset();
  entry.finished_at.reset();
  entry.queued_at = entry.created_at = entry.updated_at = *clocked;
  if (auto inserted = sql::insert_merge_entry(*db_, entry); !inserted) return inserted.error();
  if (db_->changes() != 1) {
    auto existing = first_entry(*db_, "WHERE worker_id = ?1",
                                [&](sql::Statement& s) { s.bind(1, given.worker_id); });
    if (!existing) return existing.error();
    const std::string which = existing->has_value() ? " " + (*existing)->id + " (" +
                                                          merge_state_name((*existing)->state) + ")"
                                                    : "";
    return conflict_error("worker " + given.worker_id + " is in the merge queue already as" +
                          which + "; orrery queue retry puts it back");
  }
  if (auto committed = (*transaction)->commit(); !committed) return committed.error();
  return entry;
}

Result<MergeEntry> SqlStore::resolve_merge_entry(const std::string& text) {
  auto id = sql::resolve_id_prefix(*db_, "merge_entries", text,
                                   {"queue entry", "queue entries", "orrery queue ls"});
  if (!id) return id.error();
  auto entry = first_entry(*db_, "WHERE id = ?1", [&](sql::Statement& s) { s.bind(1, *id); });
  if (!entry) return entry.error();
  if (!entry->has_value()) return not_found_error("queue entry " + *id + " is gone");
  return std::move(**entry);
}

namespace {

// The entries a filter selects (its repository, state and worker), as ?1-?3.
constexpr const char* kMergeFilterWhere =
    "WHERE (?1 = '' OR repo = ?1) AND (?2 = '' OR state = ?2) AND (?3 = '' OR worker_id = ?3)";

void bind_merge_filter(sql::Statement& s, const MergeFilter& filter) {
  s.bind(1, filter.repo)
      .bind(2, filter.state ? merge_state_name(*filter.state) : "")
      .bind(3, filter.worker_id);
}

}  // namespace

Result<std::vector<MergeEntry>> SqlStore::list_merge_entries(const MergeFilter& filter) {
  return sql::query_merge_entries(
      *db_,
      std::string(kMergeFilterWhere) +
          " ORDER BY repo, target, priority DESC, queued_at, id LIMIT ?4 OFFSET ?5",
      [&](sql::Statement& s) {
        bind_merge_filter(s, filter);
        s.bind(4, std::clamp(filter.limit, 1, 10000)).bind(5, std::max(filter.offset, 0));
      });
}

Result<std::int64_t> SqlStore::count_merge_entries(const MergeFilter& filter) {
  return sql::count_rows(*db_,
                         std::string("SELECT COUNT(*) FROM merge_entries ") + kMergeFilterWhere,
                         [&](sql::Statement& s) { bind_merge_filter(s, filter); });
}

Result<MergeEntry> SqlStore::change_merge_entry(const MergeChange& change, TimeMs caller_now) {
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  // The worker's row first, then the entry's: the order enqueue_merge takes
  // them in, so that the two never wait on each other.
  if (change.worker) {
    auto locked = db_->prepare("SELECT id FROM workers WHERE id = ?1" +
                               std::string(db_->row_lock(sql::RowLock::kUpdate)));
    if (!locked) return locked.error();
    (*locked)->bind(1, change.worker->worker_id);
    if (auto row = (*locked)->step(); !row) return row.error();
  }
  auto read = first_entry(*db_, "WHERE id = ?1" + std::string(db_->row_lock(sql::RowLock::kUpdate)),
                          [&](sql::Statement& s) { s.bind(1, change.entry_id); });
  if (!read) return read.error();
  if (!read->has_value())
    return not_found_error("no queue entry has the id '" + change.entry_id + "'");
  const MergeEntry& before = **read;
  if (before.state != change.from) {
    return conflict_error("queue entry " + before.id + " is " + merge_state_name(before.state) +
                          ", not " + merge_state_name(change.from) + "; it changed meanwhile");
  }
  if (auto legal = check_merge_transition(before.id, change.from, change.to); !legal)
    return legal.error();
  if (change.to == MergeState::kReady && change.driver.empty())
    return internal_error("a queue entry becomes ready for a named driver");
  if (!change.driver.empty() && change.from == MergeState::kReady &&
      before.driver != change.driver) {
    return conflict_error("queue entry " + before.id + " is held by " + before.driver + ", not " +
                          change.driver);
  }
  MergeEntry after = changed(before, change, *clocked);
  if (auto written = write_entry(*db_, after, change.from, before.driver); !written)
    return written.error();
  if (change.worker) {
    auto worker = change_worker_in_transaction(*change.worker, *clocked);
    if (!worker) return worker.error();
  }
  if (auto committed = (*transaction)->commit(); !committed) return committed.error();
  return after;
}

// The lease row is read under its lock and written with a guard on the
// driver read, so that of drivers racing for a queue exactly one takes it.
Result<bool> SqlStore::lease_queue(const QueueKey& queue, const QueueHolder& holder,
                                   DurationMs lease_ms, TimeMs caller_now) {
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  auto insert = db_->prepare(
      "INSERT INTO queue_leases (repo, target, driver, lease_expires_at) VALUES (?1, ?2, '', "
      "NULL) ON CONFLICT (repo, target) DO NOTHING");
  if (!insert) return insert.error();
  (*insert)->bind(1, queue.repo).bind(2, queue.target);
  if (auto status = (*insert)->run(); !status) return status.error();
  auto read = read_queue_lease(queue, true);
  if (!read) return read.error();
  const QueueLease& lease = *read;
  if (lease.driver != holder.driver && lease_is_live(lease, *clocked)) return false;
  auto update = db_->prepare(
      "UPDATE queue_leases SET driver = ?3, lease_expires_at = ?4, pid = ?5, "
      "process_started_at = ?6, host = ?7 WHERE repo = ?1 AND target = ?2 AND driver = ?8");
  if (!update) return update.error();
  const bool release = lease_ms <= 0;
  (*update)
      ->bind(1, queue.repo)
      .bind(2, queue.target)
      .bind(3, release ? std::string() : holder.driver)
      .bind(4, release ? std::optional<TimeMs>() : std::optional<TimeMs>(*clocked + lease_ms))
      .bind(5, release || holder.process.pid <= 0 ? std::optional<std::int64_t>()
                                                  : std::optional<std::int64_t>(holder.process.pid))
      .bind(6, release ? std::optional<TimeMs>() : holder.process.started_at)
      .bind(7, release ? std::string() : probe_->host_name())
      .bind(8, lease.driver);
  if (auto status = (*update)->run(); !status) return status.error();
  const bool held = db_->changes() == 1;
  if (auto committed = (*transaction)->commit(); !committed) return committed.error();
  return held;
}

Result<SqlStore::QueueLease> SqlStore::read_queue_lease(const QueueKey& queue, bool lock) {
  auto query = db_->prepare(
      "SELECT driver, lease_expires_at, pid, process_started_at, host FROM queue_leases WHERE "
      "repo = ?1 AND target = ?2" +
      std::string(lock ? db_->row_lock(sql::RowLock::kUpdate) : ""));
  if (!query) return query.error();
  (*query)->bind(1, queue.repo).bind(2, queue.target);
  auto row = (*query)->step();
  if (!row) return row.error();
  QueueLease lease;
  if (!*row) return lease;
  lease.driver = (*query)->text(0);
  lease.expires_at = (*query)->optional_int64(1);
  lease.process.pid = int((*query)->optional_int64(2).value_or(0));
  lease.process.started_at = (*query)->optional_int64(3);
  lease.host = (*query)->text(4);
  return lease;
}

// Live: held, not expired, and not by a process of this host that is gone.
bool SqlStore::lease_is_live(const QueueLease& lease, TimeMs now) const {
  if (lease.driver.empty() || !lease.expires_at || *lease.expires_at <= now) return false;
  const bool holder_gone = lease.process.pid > 0 && lease.host == probe_->host_name() &&
                           !probe_->is_alive(lease.process);
  return !holder_gone;
}

Result<std::vector<QueueKey>> SqlStore::queues_with_work(TimeMs caller_now) {
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  auto query = db_->prepare(
      "SELECT DISTINCT repo, target FROM merge_entries WHERE state IN ('waiting', 'ready') "
      "ORDER BY repo, target LIMIT 1000");
  if (!query) return query.error();
  std::vector<QueueKey> with_work;
  while (true) {
    auto row = (*query)->step();
    if (!row) return row.error();
    if (!*row) break;
    with_work.push_back({(*query)->text(0), (*query)->text(1)});
  }
  std::vector<QueueKey> queues;
  for (const QueueKey& queue : with_work) {
    auto lease = read_queue_lease(queue, false);
    if (!lease) return lease.error();
    if (!lease_is_live(*lease, *clocked)) queues.push_back(queue);
  }
  return queues;
}

}  // namespace orrery
