// SqlStore: pending runs (docs/daemon.md, "Runners") — slots the scheduling
// daemon leaves for any runner whose labels match the loop's --machine
// selector, the runners' batched claims of them, cancel requests for runs
// another host supervises, and the notices that wake runners.
//
// Invariants: a pending row has its attempt number and no claimant, token,
// start or lease, and carries its loop's claim terms as they are now (a
// trigger on loops keeps them in step); it becomes running only through
// claim_pending's one guarded statement, which reads runs alone and skips
// rows another writer holds; every write that leaves work for others
// notifies kNoticeChannel when it commits.
#include <algorithm>

#include "core/limits.h"     // kMaxLeaseMs
#include "core/loop_spec.h"  // kMinimumLeaseMs
#include "store/sql/rows.h"
#include "store/sql/sql_store.h"

namespace orrery {
namespace {

// The one channel of notices: pending rows, cancel requests, loop changes.
constexpr const char* kNoticeChannel = "orrery";

}  // namespace

Result<Run> SqlStore::leave_to_runners(const Run& claimed, TimeMs now) {
  // The row takes its loop's claim terms as they are now; a trigger on
  // loops keeps them in step from here on (docs/storage.md, "Pending runs").
  auto update = db_->prepare(
      "UPDATE runs SET status = 'pending', started_at = NULL, claimed_by = '', claim_token = '', "
      "lease_expires_at = NULL, host = '', updated_at = ?2, (claim_open, claim_selector, "
      "claim_expires_at, claim_lease_ms) = (SELECT CASE WHEN l.status = 'active' AND "
      "l.archived = 0 THEN 1 ELSE 0 END, l.machine_json, l.expires_at, l.lease_ms FROM loops l "
      "WHERE l.id = runs.loop_id) WHERE id = ?1 AND status = 'running'");
  if (!update) return update.error();
  (*update)->bind(1, claimed.id).bind(2, now);
  if (auto status = (*update)->run(); !status) return status.error();
  if (db_->changes() != 1) {
    return internal_error("run " + claimed.id + " changed while it was left to runners");
  }
  Run pending = claimed;
  pending.status = RunStatus::kPending;
  pending.started_at.reset();
  pending.claimed_by.clear();
  pending.claim_token.clear();
  pending.lease_expires_at.reset();
  pending.host.clear();
  pending.updated_at = now;
  return pending;
}

Result<std::vector<ClaimedRun>> SqlStore::claim_pending(const std::string& claimant,
                                                        const std::string& labels, int limit,
                                                        TimeMs caller_now) {
  if (claimant.empty()) return usage_error("a claimant cannot be empty");
  if (limit <= 0) return std::vector<ClaimedRun>{};
  auto now = clock(caller_now);
  if (!now) return now.error();
  // One statement of one table: the materialized subquery picks and locks
  // the oldest claimable rows once (evaluated again per row, it would skip
  // its own locks and pick more), the UPDATE takes them, and the outer
  // status test re-checks each row under its lock. What the claim checks of
  // the loop — active and not archived, not past its expiry, a --machine
  // selector the labels hold — and the lease it gives are the row's copy of
  // the loop's terms, which every change of the loop writes to its pending
  // rows under their row locks: a row another runner holds is skipped, and
  // so is a row whose loop another writer is changing (pausing, expiring,
  // deleting it), as its rows are locked until that writer commits
  // (docs/storage.md, "Pending runs"). The lease is clamped as stored leases
  // are read (store/sql/rows.h). The pending rows are read in slot order
  // through their partial index.
  const std::string sql =
      "WITH picked AS MATERIALIZED (SELECT id FROM runs " + db_->index_hint("runs_pending") +
      "WHERE status = 'pending' AND claim_open = 1 AND (claim_expires_at IS NULL OR "
      "claim_expires_at > ?1) AND (claim_selector = '[]' OR orrery_labels_within("
      "claim_selector, ?5)) ORDER BY scheduled_for, id LIMIT ?8" +
      std::string(db_->skip_locked()) +
      ") UPDATE runs SET status = 'running', started_at = ?1, claimed_by = ?2, "
      "claim_generation = claim_generation + 1, "
      "claim_token = 'g' || (claim_generation + 1) || '-' || ?3, host = ?4, "
      "cancel_requested = 0, updated_at = ?1, lease_expires_at = ?1 + CASE "
      "WHEN claim_lease_ms < ?6 THEN ?6 WHEN claim_lease_ms > ?7 THEN ?7 ELSE claim_lease_ms "
      "END WHERE status = 'pending' AND id IN (SELECT id FROM picked) RETURNING " +
      sql::run_select_list(false);
  auto claim = db_->prepare(sql);
  if (!claim) return claim.error();
  (*claim)
      ->bind(1, *now)
      .bind(2, claimant)
      .bind(3, random_hex(10))
      .bind(4, probe_->host_name())
      .bind(5, labels)
      .bind(6, kMinimumLeaseMs)
      .bind(7, kMaxLeaseMs)
      .bind(8, std::min(limit, kMaxClaimBatch));
  auto runs = sql::read_all(**claim, sql::read_run_summary);
  if (!runs) return runs.error();
  std::sort(runs->begin(), runs->end(), [](const Run& a, const Run& b) {
    return a.scheduled_for != b.scheduled_for ? a.scheduled_for < b.scheduled_for : a.id < b.id;
  });
  std::vector<ClaimedRun> claimed;
  claimed.reserve(runs->size());
  for (Run& run : *runs) {
    Claim held{run.id, run.claimed_by, run.claim_token};
    claimed.push_back(ClaimedRun{std::move(run), std::move(held)});
  }
  return claimed;
}

Result<RunStatus> SqlStore::request_cancel(const std::string& run_id, const std::string& reason,
                                           TimeMs now) {
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  auto cancel = db_->prepare(
      "UPDATE runs SET status = 'cancelled', finished_at = ?2, duration_ms = 0, error = ?3, "
      "settled = 0, updated_at = ?2 WHERE id = ?1 AND status IN ('pending', 'queued')");
  if (!cancel) return cancel.error();
  (*cancel)->bind(1, run_id).bind(2, now).bind(3, reason);
  if (auto status = (*cancel)->run(); !status) return status.error();
  if (db_->changes() == 1) {
    if (auto committed = (*transaction)->commit(); !committed) return committed.error();
    return RunStatus::kCancelled;
  }
  auto request = db_->prepare(
      "UPDATE runs SET cancel_requested = 1, updated_at = ?2 WHERE id = ?1 AND "
      "status = 'running'");
  if (!request) return request.error();
  (*request)->bind(1, run_id).bind(2, now);
  if (auto status = (*request)->run(); !status) return status.error();
  if (db_->changes() == 1) {
    if (auto noticed = notify_daemons(); !noticed) return noticed.error();
    if (auto committed = (*transaction)->commit(); !committed) return committed.error();
    return RunStatus::kRunning;
  }
  auto run = get_run(run_id);
  if (!run) return run.error();
  if (!run->has_value()) return not_found_error("no run has the id '" + run_id + "'");
  return (*run)->status;
}

Result<std::vector<Run>> SqlStore::running_cancel_requests(const std::string& claimant) {
  return query_runs(
      "SELECT " + sql::run_select_list(false) + " FROM runs " +
          db_->index_hint("runs_running_claimant") +
          "WHERE status = 'running' AND claimed_by = ?1 AND cancel_requested = 1 "
          "ORDER BY scheduled_for, id",
      [&](sql::Statement& s) { s.bind(1, claimant); }, false);
}

Status SqlStore::notify_daemons() { return db_->notify(kNoticeChannel); }

Result<int> SqlStore::listen_for_notices() { return db_->listen({kNoticeChannel}); }

Result<bool> SqlStore::take_notices() { return db_->take_notifications(); }

}  // namespace orrery
