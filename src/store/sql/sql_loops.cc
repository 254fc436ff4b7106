// SqlStore: loops.
#include <set>

#include "store/sql/rows.h"
#include "store/sql/sql_store.h"

namespace orrery {
namespace {

using Bind = std::function<void(sql::Statement&)>;

// WHERE clause for a filter; binds ?1 (status) when one is given (and ?2,
// the limit, is bound by list_loops).
std::string where_clause(const LoopFilter& filter) {
  std::string where;
  switch (filter.archived) {
    case LoopFilter::Archived::kExclude:
      where = " WHERE archived = 0";
      break;
    case LoopFilter::Archived::kOnly:
      where = " WHERE archived = 1";
      break;
    case LoopFilter::Archived::kInclude:
      where = " WHERE 1 = 1";
      break;
  }
  if (filter.status) where += " AND status = ?1";
  return where;
}

void bind_filter(sql::Statement& statement, const LoopFilter& filter) {
  if (filter.status) statement.bind(1, loop_status_name(*filter.status));
}

std::string describe_candidates(const std::vector<Loop>& loops) {
  std::string text;
  for (const Loop& loop : loops) {
    if (!text.empty()) text += ", ";
    text += loop.id + " (" + loop.name + ", " + loop_status_name(loop.status) +
            (loop.archived ? ", archived" : "") + ")";
  }
  return text;
}

bool is_hex(const std::string& text) {
  return text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

Result<std::vector<Loop>> SqlStore::query_loops(const std::string& sql, const Bind& bind) {
  auto query = db_->prepare(sql);
  if (!query) return query.error();
  bind(**query);
  return sql::read_all(**query, sql::read_loop);
}

Status SqlStore::create_loop(const Loop& loop) {
  if (loop.name.empty()) return usage_error("a loop name cannot be empty");
  // A new loop's parts start at version 1 (docs/storage.md, "Loop versions").
  Loop stored = loop;
  stored.config_version = 1;
  stored.state_version = 1;
  // The loop and the notice that tells a scheduling daemon on another host
  // of it (docs/daemon.md, "Runners") commit together (in the caller's
  // transaction, when one is open).
  std::unique_ptr<sql::Transaction> transaction;
  if (!db_->in_transaction()) {
    auto begun = sql::Transaction::begin(*db_);
    if (!begun) return begun.error();
    transaction = std::move(*begun);
  }
  auto insert = db_->prepare(sql::loop_insert_sql());
  if (!insert) return insert.error();
  sql::bind_loop(**insert, stored);
  if (auto status = (*insert)->run(); !status) return status;
  if (db_->changes() != 1) return internal_error("loop " + loop.id + " was not stored");
  if (auto noticed = notify_daemons(); !noticed) return noticed;
  return transaction ? transaction->commit() : Status(Ok{});
}

Result<std::optional<Loop>> SqlStore::get_loop(const std::string& id) {
  auto loops =
      query_loops(std::string("SELECT ") + sql::loop_select_list() + " FROM loops WHERE id = ?1",
                  [&](sql::Statement& s) { s.bind(1, id); });
  if (!loops) return loops.error();
  if (loops->empty()) return std::optional<Loop>{};
  return std::optional<Loop>{std::move(loops->front())};
}

Result<Loop> SqlStore::resolve_loop(const std::string& text) {
  if (text.empty()) return usage_error("a loop id or name cannot be empty");
  auto exact = get_loop(text);
  if (!exact) return exact.error();
  if (exact->has_value()) return **exact;
  std::vector<Loop> candidates;
  std::set<std::string> seen;
  const auto add = [&](std::vector<Loop> loops) {
    for (Loop& loop : loops) {
      if (seen.insert(loop.id).second) candidates.push_back(std::move(loop));
    }
  };
  bool capped = false;  // a query returned its limit: there may be more
  auto named = query_loops(std::string("SELECT ") + sql::loop_select_list() +
                               " FROM loops WHERE name = ?1 ORDER BY created_at LIMIT 10",
                           [&](sql::Statement& s) { s.bind(1, text); });
  if (!named) return named.error();
  capped = named->size() == 10;
  add(std::move(*named));
  // A name given exactly wins over id prefixes it also is ("01a232" names its
  // loop even when ids begin so): a name is always usable (docs/cli.md).
  if (candidates.empty() && text.size() >= 6 && is_hex(text)) {
    auto prefixed = query_loops(std::string("SELECT ") + sql::loop_select_list() +
                                    " FROM loops WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT 10",
                                [&](sql::Statement& s) { s.bind(1, text).bind(2, text + "g"); });
    if (!prefixed) return prefixed.error();
    capped = capped || prefixed->size() == 10;
    add(std::move(*prefixed));
  }
  if (candidates.empty()) return not_found_error("no loop has the id or name '" + text + "'");
  if (candidates.size() > 1) {
    return conflict_error("'" + text + "' matches " + (capped ? "at least " : "") +
                          std::to_string(candidates.size()) +
                          " loops: " + describe_candidates(candidates) + "; use an id");
  }
  return std::move(candidates.front());
}

Result<std::vector<Loop>> SqlStore::list_loops(const LoopFilter& filter) {
  const std::string sql = std::string("SELECT ") + sql::loop_select_list() + " FROM loops" +
                          where_clause(filter) +
                          " ORDER BY archived, status, next_run_at IS NULL, next_run_at, name, id "
                          "LIMIT ?2 OFFSET ?3";
  return query_loops(sql, [&](sql::Statement& s) {
    bind_filter(s, filter);
    s.bind(2, filter.limit).bind(3, filter.offset);
  });
}

Result<std::int64_t> SqlStore::count_loops(const LoopFilter& filter) {
  return sql::count_rows(*db_, "SELECT COUNT(*) FROM loops" + where_clause(filter),
                         [&](sql::Statement& s) { bind_filter(s, filter); });
}

Result<std::vector<DueLoop>> SqlStore::due_loops(TimeMs now, int limit) {
  // Covered by the index loops_due (status, archived, next_run_at, id).
  auto query = db_->prepare(
      "SELECT id, next_run_at FROM loops WHERE status = 'active' AND archived = 0 AND "
      "next_run_at <= ?1 ORDER BY next_run_at LIMIT ?2");
  if (!query) return query.error();
  (*query)->bind(1, now).bind(2, limit);
  std::vector<DueLoop> due;
  while (true) {
    auto row = (*query)->step();
    if (!row) return row.error();
    if (!*row) return due;
    due.push_back({(*query)->text(0), (*query)->int64(1)});
  }
}

// Within an open transaction: one part of the loop, guarded by that part's
// version as read (`loop`'s); false when the version moved or the loop is gone.
Result<bool> SqlStore::write_loop_part(const Loop& loop, sql::LoopPart part, TimeMs now) {
  const bool state = part == sql::LoopPart::kState;
  // Built once: a tick writes the state of every loop it plans.
  static const std::string kConfigSql = sql::loop_part_update_sql(sql::LoopPart::kConfig);
  static const std::string kStateSql = sql::loop_part_update_sql(sql::LoopPart::kState);
  auto update = db_->prepare(state ? kStateSql : kConfigSql);
  if (!update) return update.error();
  sql::bind_loop_part(**update, loop, part);
  (*update)
      ->bind(sql::loop_part_now_parameter(), now)
      .bind(sql::loop_part_version_parameter(), state ? loop.state_version : loop.config_version);
  if (auto status = (*update)->run(); !status) return status.error();
  return db_->changes() == 1;
}

Result<bool> SqlStore::write_schedule_state(const std::string& loop_id, std::int64_t state_version,
                                            const ScheduleState& state, TimeMs now) {
  Loop loop;
  loop.id = loop_id;
  loop.state_version = state_version;
  set_schedule_state(loop, state);
  return write_loop_part(loop, sql::LoopPart::kState, now);
}

Status SqlStore::update_loop_parts(const Loop& loop, LoopParts parts, const Fence& fence,
                                   TimeMs now) {
  if (!parts.config && !parts.state) {
    return usage_error("an update of loop " + loop.name + " names no part to write");
  }
  if (parts.config && loop.name.empty()) return usage_error("a loop name cannot be empty");
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  if (auto fenced = check_fence(fence, now); !fenced) return fenced;
  bool written = true;
  for (const auto& [wanted, part] : {std::pair{parts.config, sql::LoopPart::kConfig},
                                     std::pair{parts.state, sql::LoopPart::kState}}) {
    if (!wanted || !written) continue;
    auto one = write_loop_part(loop, part, now);
    if (!one) return one.error();
    written = *one;
  }
  if (!written) {
    auto current = get_loop(loop.id);
    if (!current) return current.error();
    if (!current->has_value()) return not_found_error("no loop has the id '" + loop.id + "'");
    return conflict_error("loop " + loop.name + " changed while it was being updated; try again");
  }
  // A command's change (unfenced) wakes the scheduling daemon wherever it runs.
  if (fence.daemon_lease_id.empty()) {
    if (auto noticed = notify_daemons(); !noticed) return noticed;
  }
  return (*transaction)->commit();
}

// Within an open transaction: why a loop cannot be deleted now (a run of it
// is running), or empty when it can (docs/storage.md, "Deleting a loop").
Result<std::string> SqlStore::deletion_refusal(const std::string& id) {
  auto running = db_->prepare(
      "SELECT loops.name, runs.id, runs.supervisor_pid FROM runs JOIN loops "
      "ON loops.id = runs.loop_id WHERE runs.loop_id = ?1 AND runs.status = 'running' LIMIT 1");
  if (!running) return running.error();
  (*running)->bind(1, id);
  auto row = (*running)->step();
  if (!row) return row.error();
  if (!*row) return std::string();
  const std::string run_id = (*running)->text(1);
  const std::optional<std::int64_t> supervisor = (*running)->optional_int64(2);
  std::string how =
      supervisor ? "stop it with: kill -TERM " + std::to_string(*supervisor) +
                       " (its supervisor; the run is cancelled), then delete the loop"
                 : "wait for it to finish, or run 'orrery recover' if its supervisor is gone";
  return "cannot delete loop " + (*running)->text(0) + ": run " + run_id + " is running; " + how;
}

Result<std::vector<std::string>> SqlStore::delete_loop(const std::string& id) {
  // A cascade can delete many rows: a damaged database is refused first.
  if (auto intact = db_->check_integrity(); !intact) return intact.error();
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  // The loop's row is locked first: a claim of a slot (which locks it
  // shared) either committed before, and its run is seen below, or waits for
  // the deletion. Then its pending rows: a runner's claim holding one commits
  // first, and its run is seen below, and one that comes later skips them.
  for (const char* lock_sql : {"SELECT id FROM loops WHERE id = ?1",
                               "SELECT id FROM runs WHERE loop_id = ?1 AND status = 'pending'"}) {
    auto lock = db_->prepare(lock_sql + std::string(db_->row_lock(sql::RowLock::kUpdate)));
    if (!lock) return lock.error();
    if (auto status = (*lock)->bind(1, id).run(); !status) return status.error();
  }
  auto refused = deletion_refusal(id);
  if (!refused) return refused.error();
  if (!refused->empty()) return conflict_error(*refused);
  std::vector<std::string> run_ids;
  {
    auto runs = db_->prepare("SELECT id FROM runs WHERE loop_id = ?1");
    if (!runs) return runs.error();
    (*runs)->bind(1, id);
    while (true) {
      auto row = (*runs)->step();
      if (!row) return row.error();
      if (!*row) break;
      run_ids.push_back((*runs)->text(0));
    }
  }
  // Guarded as well: no run of the loop may have started since the check.
  auto remove = db_->prepare(
      "DELETE FROM loops WHERE id = ?1 AND NOT EXISTS "
      "(SELECT 1 FROM runs WHERE loop_id = ?1 AND status = 'running')");
  if (!remove) return remove.error();
  (*remove)->bind(1, id);
  if (auto status = (*remove)->run(); !status) return status.error();
  if (db_->changes() != 1) return not_found_error("no loop has the id '" + id + "'");
  // Its goals stay, for their history; an open one has nothing left to run.
  auto orphan = db_->prepare(
      "UPDATE goals SET status = 'cancelled', status_reason = 'its loop was deleted', "
      "version = version + 1 WHERE loop_id = ?1 AND "
      "status NOT IN ('budget_limited', 'complete', 'cancelled')");
  if (!orphan) return orphan.error();
  (*orphan)->bind(1, id);
  if (auto status = (*orphan)->run(); !status) return status.error();
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return run_ids;
}

namespace {

// What expiry writes: the loop's schedule state (its version bumped), and
// its queued and pending runs become skipped (settled: the loop ended) (docs/storage.md, "Expiry").
// ?1 is now; the loops are those matching the condition, with ?2 a loop id when one is named.
constexpr const char* kExpiringLoops = "status = 'active' AND expires_at <= ?1 AND archived = 0";

std::string expire_queued_runs_sql(const std::string& which) {
  // The first condition lets the partial index runs_active serve.
  return std::string("UPDATE runs SET status = 'skipped', skip_reason = 'expired', ") +
         "finished_at = ?1, settled = 1, updated_at = ?1 WHERE status IN " +
         sql::kActiveRunStatuses + " AND status IN ('queued', 'pending') AND " +
         "loop_id IN (SELECT id FROM loops WHERE " + which + ")";
}

std::string expire_loops_sql(const std::string& which) {
  return "UPDATE loops SET status = 'expired', next_run_at = NULL, "
         "state_version = state_version + 1, updated_at = ?1 WHERE " +
         which;
}

}  // namespace

// Within an open transaction: one active loop past its expiry becomes
// expired (guarded by its status and expiry, the row count checked).
Status SqlStore::expire_loop(const std::string& id, TimeMs now) {
  const std::string which = std::string(kExpiringLoops) + " AND id = ?2";
  auto queued = db_->prepare(expire_queued_runs_sql(which));
  if (!queued) return queued.error();
  (*queued)->bind(1, now).bind(2, id);
  if (auto status = (*queued)->run(); !status) return status;
  auto update = db_->prepare(expire_loops_sql(which));
  if (!update) return update.error();
  (*update)->bind(1, now).bind(2, id);
  if (auto status = (*update)->run(); !status) return status;
  if (db_->changes() != 1) return conflict_error("loop " + id + " changed while it expired");
  return Ok{};
}

// A read of the index loops_expiry (status, expires_at): whether any active
// loop has passed its expiry. Lets expire_loops take no write lock when
// nothing expires.
Result<bool> SqlStore::any_loop_to_expire(TimeMs now) {
  auto query = db_->prepare(
      "SELECT 1 FROM loops WHERE status = 'active' AND expires_at <= ?1 AND archived = 0 LIMIT 1");
  if (!query) return query.error();
  (*query)->bind(1, now);
  return (*query)->step();
}

Result<int> SqlStore::expire_loops(TimeMs now, const Fence& fence) {
  if (auto fenced = check_fence(fence, now); !fenced) return fenced.error();
  auto any = any_loop_to_expire(now);
  if (!any) return any.error();
  if (!*any) return 0;
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  if (auto fenced = check_fence(fence, now); !fenced) return fenced.error();
  // All three read the index loops_expiry (status, expires_at): only the
  // loops expiring. Their rows are locked first, then their queued runs —
  // the order a claim takes (loop, then run), so that expiry and a claim of
  // an expiring loop take turns instead of deadlocking on PostgreSQL — and
  // the runs are written while the loops still match.
  {
    auto lock = db_->prepare(std::string("SELECT id FROM loops WHERE ") + kExpiringLoops +
                             std::string(db_->row_lock(sql::RowLock::kUpdate)));
    if (!lock) return lock.error();
    if (auto status = (*lock)->bind(1, now).run(); !status) return status.error();
  }
  auto queued = db_->prepare(expire_queued_runs_sql(kExpiringLoops));
  if (!queued) return queued.error();
  (*queued)->bind(1, now);
  if (auto status = (*queued)->run(); !status) return status.error();
  auto update = db_->prepare(expire_loops_sql(kExpiringLoops));
  if (!update) return update.error();
  (*update)->bind(1, now);
  if (auto status = (*update)->run(); !status) return status.error();
  const int expired = db_->changes();
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return expired;
}

}  // namespace orrery
