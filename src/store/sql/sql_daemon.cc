// SqlStore: what the daemon's tick needs — plan commits, settling
// finished runs, a run's own next-in choice, and the reads that tell the
// daemon what is active and when to wake (docs/storage.md, "Plan commits",
// "Queued runs", "Settling a finished run").
#include <algorithm>

#include "core/duration.h"
#include "core/limits.h"
#include "store/sql/rows.h"
#include "store/sql/sql_store.h"

namespace orrery {
namespace {

// The rows the daemon's reads return at most per call.
constexpr int kMaxRowsPerRead = 10'000;

int clamp_limit(int limit) { return std::clamp(limit, 0, kMaxRowsPerRead); }

std::string select_summaries(const std::string& where) {
  return "SELECT " + sql::run_select_list(false) + " FROM runs " + where;
}

// The first column of the first row of a bound query, if any.
Result<std::optional<std::int64_t>> first_value(sql::Statement& query) {
  auto row = query.step();
  if (!row) return row.error();
  if (!*row) return std::optional<std::int64_t>{};
  return query.optional_int64(0);
}

}  // namespace

// Within an open transaction: a queued or skipped row for a slot that has
// none (the loop's name copied from its row); false when the slot already
// has a row. `run_id` is the new row's id.
Result<bool> SqlStore::insert_planned_row(const std::string& loop_id, TimeMs slot, RunStatus status,
                                          const std::string& skip_reason, TimeMs now,
                                          std::string& run_id) {
  const bool skipped = status == RunStatus::kSkipped;
  auto insert = db_->prepare(
      "INSERT INTO runs (id, loop_id, loop_name, scheduled_for, attempt, status, finished_at, "
      "skip_reason, created_at, updated_at) SELECT ?1, id, name, ?3, 1, ?4, ?5, ?6, ?7, ?7 "
      "FROM loops WHERE id = ?2 ON CONFLICT (loop_id, scheduled_for) DO NOTHING");
  if (!insert) return insert.error();
  run_id = new_id(now);
  (*insert)
      ->bind(1, run_id)
      .bind(2, loop_id)
      .bind(3, slot)
      .bind(4, run_status_name(status))
      .bind(5, skipped ? std::optional<TimeMs>(now) : std::nullopt)
      .bind(6, skip_reason)
      .bind(7, now);
  if (auto done = (*insert)->run(); !done) return done.error();
  return db_->changes() == 1;
}

// Within an open transaction: a slot a plan meant to start (claim or queue)
// but found taken by a row it could not take — finished, held by another
// claim, or out of attempts — is handed to settlement: the row becomes
// unsettled, so that settling it gives the loop what the slot's finish
// implies and a loop left waiting for the slot gets its next one
// (docs/storage.md, "Plan commits"). A queued or pending row is already the
// daemon's.
Status SqlStore::hand_to_settlement(const std::string& loop_id, TimeMs slot, TimeMs now) {
  auto update = db_->prepare(
      "UPDATE runs SET settled = 0, updated_at = ?3 WHERE loop_id = ?1 AND scheduled_for = ?2 "
      "AND settled = 1 AND status NOT IN ('queued', 'pending')");
  if (!update) return update.error();
  (*update)->bind(1, loop_id).bind(2, slot).bind(3, now);
  return (*update)->run();
}

// Within the tick's transaction: one loop's plan, whole or not at all. The
// guarded state write comes first; when the loop's state version moved (or
// the loop is gone) nothing else of the plan is written.
Status SqlStore::commit_loop_plan(const LoopPlanCommit& plan, const std::string& claimant,
                                  TimeMs now, LoopPlanResult& result) {
  auto written = write_schedule_state(plan.loop_id, plan.state_version, plan.state, now);
  if (!written) return written.error();
  if (!*written) return Ok{};
  result.applied = true;
  std::vector<std::string> queued_ids;
  for (TimeMs slot : plan.queue) {
    std::string run_id;
    auto inserted = insert_planned_row(plan.loop_id, slot, RunStatus::kQueued, "", now, run_id);
    if (!inserted) return inserted.error();
    if (*inserted) {
      queued_ids.push_back(run_id);
    } else if (auto handed = hand_to_settlement(plan.loop_id, slot, now); !handed) {
      return handed;
    }
  }
  for (const SkippedSlot& skipped : plan.skipped) {
    std::string run_id;
    auto inserted = insert_planned_row(plan.loop_id, skipped.slot, RunStatus::kSkipped,
                                       skip_reason_name(skipped.reason), now, run_id);
    if (!inserted) return inserted.error();
    if (*inserted) ++result.skipped_inserted;
  }
  for (TimeMs slot : plan.claim) {
    std::string refused;
    auto claimed = claim_in_transaction({plan.loop_id, slot, false}, claimant, now,
                                        /*settled=*/false, refused);
    if (!claimed) return claimed.error();
    if (!refused.empty()) break;  // the loop cannot be claimed (it may have expired now)
    if (claimed->has_value() && plan.to_runners) {
      auto pending = leave_to_runners((*claimed)->run, now);
      if (!pending) return pending.error();
      result.pending.push_back(std::move(*pending));
    } else if (claimed->has_value()) {
      result.claimed.push_back(std::move(**claimed));
    } else if (auto handed = hand_to_settlement(plan.loop_id, slot, now); !handed) {
      return handed;
    }
  }
  // Read last: a claim that expired the loop has turned its queued rows skipped.
  for (const std::string& id : queued_ids) {
    auto run = get_run(id);
    if (!run) return run.error();
    if (run->has_value()) result.queued.push_back(std::move(**run));
  }
  return Ok{};
}

Result<std::vector<LoopPlanResult>> SqlStore::commit_plans(const std::vector<LoopPlanCommit>& plans,
                                                           const std::string& claimant,
                                                           TimeMs caller_now, const Fence& fence) {
  if (claimant.empty()) return usage_error("a claimant cannot be empty");
  // Claims take their leases on the database's clock (docs/storage.md, "Whose clock").
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  const TimeMs now = *clocked;
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  if (auto fenced = check_fence_at(fence, now); !fenced) return fenced.error();
  std::vector<LoopPlanResult> results;
  results.reserve(plans.size());
  for (const LoopPlanCommit& plan : plans) {
    LoopPlanResult result;
    result.loop_id = plan.loop_id;
    if (auto status = commit_loop_plan(plan, claimant, now, result); !status) {
      return status.error();
    }
    results.push_back(std::move(result));
  }
  // One notice for the whole commit, delivered when it commits.
  const bool left_pending = std::any_of(results.begin(), results.end(),
                                        [](const LoopPlanResult& r) { return !r.pending.empty(); });
  if (left_pending) {
    if (auto noticed = notify_daemons(); !noticed) return noticed.error();
  }
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return results;
}

Result<std::vector<Run>> SqlStore::unsettled_runs(int limit) {
  // Reads the partial index runs_unsettled (finished_at, id) WHERE settled = 0,
  // in its order (named: without statistics SQLite would rather read every
  // terminal run through runs_status_lease).
  return query_runs(
      select_summaries(db_->index_hint("runs_unsettled") + "WHERE settled = 0 AND status IN " +
                       sql::kTerminalRunStatuses + " ORDER BY finished_at, id LIMIT ?1"),
      [&](sql::Statement& s) { s.bind(1, clamp_limit(limit)); }, false);
}

// Within settle_runs' transaction. The row of the run's loop, if both exist,
// is locked for writing before the run's row, in the order a claim takes them
// (loop, then run), so that a settlement and a claim of the same slot take
// turns instead of deadlocking on PostgreSQL.
Result<Status> SqlStore::settle_one(const Settlement& settlement, TimeMs now) {
  // The loop is locked and its version checked before anything is written,
  // so that a conflict leaves this run as it was and the batch goes on.
  struct LockedLoop {
    std::string id, name;
    std::int64_t state_version = 0;
  };
  std::optional<LockedLoop> loop;
  {
    auto lock = db_->prepare(
        "SELECT id, name, state_version FROM loops WHERE id = (SELECT loop_id FROM runs WHERE "
        "id = ?1)" +
        std::string(db_->row_lock(sql::RowLock::kUpdate)));
    if (!lock) return lock.error();
    (*lock)->bind(1, settlement.run_id);
    auto row = (*lock)->step();
    if (!row) return row.error();
    if (*row) loop = LockedLoop{(*lock)->text(0), (*lock)->text(1), (*lock)->int64(2)};
    if (auto rest = (*lock)->run(); !rest) return rest.error();
  }
  if (loop && loop->state_version != settlement.state_version) {
    return Status(conflict_error("loop " + loop->name + " changed while run " + settlement.run_id +
                                 " was being settled; try again"));
  }
  auto settle = db_->prepare(std::string("UPDATE runs SET settled = 1, updated_at = ?2 "
                                         "WHERE id = ?1 AND settled = 0 AND status IN ") +
                             sql::kTerminalRunStatuses);
  if (!settle) return settle.error();
  (*settle)->bind(1, settlement.run_id).bind(2, now);
  if (auto done = (*settle)->run(); !done) return done.error();
  if (db_->changes() != 1) {
    auto run = get_run(settlement.run_id);
    if (!run) return run.error();
    if (!run->has_value()) {
      return Status(not_found_error("no run has the id '" + settlement.run_id + "'"));
    }
    return Status(conflict_error("cannot settle run " + settlement.run_id + ": it is " +
                                 run_status_name((*run)->status) +
                                 ((*run)->settled ? " and settled already" : ", not finished")));
  }
  if (!loop) return Status(Ok{});
  auto written = write_schedule_state(loop->id, settlement.state_version, settlement.state, now);
  if (!written) return written.error();
  if (!*written) {  // cannot happen under the lock: nothing of the batch is kept
    return internal_error("loop " + loop->name + " changed under its lock while run " +
                          settlement.run_id + " was being settled");
  }
  return Status(Ok{});
}

Result<std::vector<Status>> SqlStore::settle_runs(const std::vector<Settlement>& settlements,
                                                  TimeMs now, const Fence& fence) {
  std::vector<Status> outcomes;
  if (settlements.empty()) return outcomes;
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  if (auto fenced = check_fence(fence, now); !fenced) return fenced.error();
  outcomes.reserve(settlements.size());
  for (const Settlement& settlement : settlements) {
    auto outcome = settle_one(settlement, now);
    if (!outcome) return outcome.error();
    outcomes.push_back(std::move(*outcome));
  }
  if (auto committed = (*transaction)->commit(); !committed) return committed.error();
  return outcomes;
}

Result<std::vector<Run>> SqlStore::active_runs(int limit) {
  // Reads the partial index runs_active (loop_id, scheduled_for): the
  // running, queued and pending runs only.
  return query_runs(
      select_summaries(db_->index_hint("runs_active") + "WHERE status IN " +
                       sql::kActiveRunStatuses + " ORDER BY scheduled_for, id LIMIT ?1"),
      [&](sql::Statement& s) { s.bind(1, clamp_limit(limit)); }, false);
}

Status SqlStore::set_run_next_in(const std::string& run_id, DurationMs delay, TimeMs now) {
  if (delay < 0 || delay > kMaxDynamicDelayMs) {
    return usage_error("next-in " +
                       (delay < 0 ? std::to_string(delay) + "ms" : format_duration(delay)) +
                       " is out of range: give a delay from 0s to " +
                       format_duration(kMaxDynamicDelayMs) + " (365 days)");
  }
  auto update = db_->prepare(
      "UPDATE runs SET next_in_ms = ?2, updated_at = ?3 WHERE id = ?1 AND status = 'running'");
  if (!update) return update.error();
  (*update)->bind(1, run_id).bind(2, delay).bind(3, now);
  if (auto status = (*update)->run(); !status) return status;
  if (db_->changes() == 1) return Ok{};
  auto run = get_run(run_id);
  if (!run) return run.error();
  if (!run->has_value()) return not_found_error("no run has the id '" + run_id + "'");
  return conflict_error("run " + run_id + " is not running (it is " +
                        run_status_name((*run)->status) + ")");
}

Result<WakeTimes> SqlStore::wake_times(TimeMs now) {
  // Each is a MIN over one index range, answered by one seek: loops_due
  // (status, archived, next_run_at, id) and runs_status_lease (status,
  // lease_expires_at); cooldowns has one row per account.
  const auto earliest = [&](const char* sql, bool after_now) -> Result<std::optional<TimeMs>> {
    auto query = db_->prepare(sql);
    if (!query) return query.error();
    if (after_now) (*query)->bind(1, now);
    return first_value(**query);
  };
  auto due = earliest(
      "SELECT MIN(next_run_at) FROM loops WHERE status = 'active' AND archived = 0 AND "
      "next_run_at > ?1",
      true);
  if (!due) return due.error();
  // A lease already past counts too: recovery is due.
  auto lease = earliest("SELECT MIN(lease_expires_at) FROM runs WHERE status = 'running'", false);
  if (!lease) return lease.error();
  auto cooldown = earliest("SELECT MIN(until_at) FROM cooldowns WHERE until_at > ?1", true);
  if (!cooldown) return cooldown.error();
  // work_items_status (status, …): the failed items, few.
  auto retry =
      earliest("SELECT MIN(next_attempt_at) FROM work_items WHERE status = 'failed'", false);
  if (!retry) return retry.error();
  return WakeTimes{*due, *lease, *cooldown, *retry};
}

}  // namespace orrery
