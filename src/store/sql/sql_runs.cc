// SqlStore: runs — claims, skipped slots, recovery of expired leases and
// pruning (a claimed run's process records, heartbeats and outcome are the
// claim ledger's: sql_claim_ledger.cc).
#include <algorithm>
#include <limits>

#include "core/retry_policy.h"
#include "core/time.h"
#include "store/sql/column_table.h"
#include "store/sql/rows.h"
#include "store/sql/sql_store.h"

namespace orrery {
namespace {

using Bind = std::function<void(sql::Statement&)>;

// What a claim needs of its loop: read without decoding the whole loop,
// since claims are the store's hottest path.
struct ClaimTerms {
  std::string name;
  LoopStatus status = LoopStatus::kActive;
  bool archived = false;
  DurationMs lease_ms = 0;
  int max_attempts = 1;
  std::optional<TimeMs> expires_at;
};

const sql::ColumnTable<ClaimTerms> kClaimTermsColumns = {
    {"name", sql::read_field<&ClaimTerms::name>},
    {"status",
     [](const sql::Statement& r, int c, ClaimTerms& terms) -> Status {
       auto status = parse_loop_status(r.text(c));
       if (!status) return status.error();
       terms.status = *status;
       return Ok{};
     }},
    {"archived", sql::read_field<&ClaimTerms::archived>},
    {"lease_ms",
     [](const sql::Statement& r, int c, ClaimTerms& terms) -> Status {
       terms.lease_ms = sql::stored_lease(r.int64(c));
       return Ok{};
     }},
    {"max_attempts", sql::read_field<&ClaimTerms::max_attempts>},
    {"expires_at", sql::read_field<&ClaimTerms::expires_at>},
};

// Reads the loop's terms under `lock`; with `live_at`, only a loop that has
// not passed its expiry by then.
Result<std::optional<ClaimTerms>> read_claim_terms(sql::Connection& db, const std::string& loop_id,
                                                   std::optional<TimeMs> live_at,
                                                   sql::RowLock lock) {
  auto query =
      db.prepare("SELECT " + sql::select_list(kClaimTermsColumns) + " FROM loops WHERE id = ?1" +
                 (live_at ? " AND (expires_at IS NULL OR expires_at > ?2)" : "") +
                 std::string(db.row_lock(lock)));
  if (!query) return query.error();
  (*query)->bind(1, loop_id);
  if (live_at) (*query)->bind(2, *live_at);
  auto row = (*query)->step();
  if (!row) return row.error();
  if (!*row) return std::optional<ClaimTerms>{};
  auto terms = sql::read_columns(kClaimTermsColumns, **query);
  if (!terms) return terms.error();
  return std::optional<ClaimTerms>{std::move(*terms)};
}

// Locks the loop's row against changes (pause, archive, delete) until the
// claim commits: shared, so that claims of one loop do not wait for each
// other — but exclusively when the loop has passed its expiry at `now`, since
// the claim then writes its expiry: claims holding the row shared and each
// writing it would deadlock (docs/storage.md, "Expiry").
Result<std::optional<ClaimTerms>> claim_terms(sql::Connection& db, const std::string& loop_id,
                                              TimeMs now) {
  auto live = read_claim_terms(db, loop_id, now, sql::RowLock::kShare);
  if (!live || live->has_value()) return live;
  // Past its expiry, or gone.
  return read_claim_terms(db, loop_id, std::nullopt, sql::RowLock::kUpdate);
}

bool past_expiry(const ClaimTerms& loop, TimeMs now) {
  return loop.expires_at && *loop.expires_at <= now;
}

// Why a loop's slot cannot be claimed now, or empty when it can
// (docs/storage.md, "Which loops can be claimed").
std::string refusal(const ClaimTerms& loop, bool manual, TimeMs now) {
  const std::string prefix = "cannot claim a run of loop " + loop.name + ": ";
  if (loop.archived) return prefix + "it is archived";
  if (past_expiry(loop, now) && loop.status != LoopStatus::kCompleted) {
    return "loop " + loop.name + " expired at " + format_time(*loop.expires_at);
  }
  switch (loop.status) {
    case LoopStatus::kActive:
      return "";
    case LoopStatus::kPaused:
      return manual ? "" : prefix + "it is paused";
    case LoopStatus::kExpired:
      return prefix + "it has expired";
    case LoopStatus::kCompleted:
      return prefix + "it has completed";
  }
  return prefix + "its status is unknown";
}

// What of a run's processes still lives (pid and start time through the
// probe): its supervisor (or, before one is recorded, its target), only its
// target (the supervisor died: an orphan, which recovery kills,
// docs/execution.md "Recovery"), or nothing. A slot is claimed again only
// when nothing of its last attempt lives (docs/storage.md, "Runs, claims
// and fencing").
enum class Liveness { kNothing, kSupervised, kOrphaned };

Liveness liveness(const Run& run, const ProcessProbe& probe) {
  // Another host's pids mean nothing here: its lease decides.
  if (!runs_on_host(run, probe.host_name())) return Liveness::kNothing;
  const bool target = run.target && probe.is_alive(*run.target);
  if (run.supervisor) {
    if (probe.is_alive(*run.supervisor)) return Liveness::kSupervised;
    return target ? Liveness::kOrphaned : Liveness::kNothing;
  }
  return target ? Liveness::kSupervised : Liveness::kNothing;
}

// How an existing slot may be claimed again: as a free re-attempt (the
// attempt number stays), as the next ordinary attempt, or not at all
// (core/retry_policy.h); nothing of its last attempt may still live.
Reattempt reclaim_kind(const Run& run, TimeMs now, Liveness alive, int max_attempts) {
  if (run.status == RunStatus::kRunning || run.status == RunStatus::kAbandoned) {
    if (alive != Liveness::kNothing) return Reattempt::kNone;
  }
  const bool lease_expired = run.lease_expires_at && *run.lease_expires_at <= now;
  return reattempt_kind(run, max_attempts, lease_expired);
}

std::string select_runs(const std::string& where, bool with_tails = true) {
  return "SELECT " + sql::run_select_list(with_tails) + " FROM runs " + where;
}

}  // namespace

Result<std::vector<Run>> SqlStore::query_runs(const std::string& sql, const Bind& bind,
                                              bool with_tails) {
  auto query = db_->prepare(sql);
  if (!query) return query.error();
  bind(**query);
  return sql::read_all(**query, with_tails ? sql::read_run : sql::read_run_summary);
}

Result<std::optional<Run>> SqlStore::get_run(const std::string& id) {
  auto runs = query_runs(select_runs("WHERE id = ?1"), [&](sql::Statement& s) { s.bind(1, id); });
  if (!runs) return runs.error();
  if (runs->empty()) return std::optional<Run>{};
  return std::optional<Run>{std::move(runs->front())};
}

Result<std::optional<Run>> SqlStore::get_run_by_slot(const std::string& loop_id, TimeMs slot) {
  auto runs = query_runs(select_runs("WHERE loop_id = ?1 AND scheduled_for = ?2"),
                         [&](sql::Statement& s) { s.bind(1, loop_id).bind(2, slot); });
  if (!runs) return runs.error();
  if (runs->empty()) return std::optional<Run>{};
  return std::optional<Run>{std::move(runs->front())};
}

namespace {

// The filter's conditions (?1 loop, ?2 status, ?5 and ?6 the run after
// which the page starts), shared by the list and its count.
std::string run_filter_where(const RunFilter& filter) {
  std::string where = "WHERE 1 = 1";
  if (filter.loop_id) where += " AND loop_id = ?1";
  if (filter.status) where += " AND status = ?2";
  if (filter.after) where += " AND (created_at < ?5 OR (created_at = ?5 AND id < ?6))";
  return where;
}

void bind_run_filter(sql::Statement& s, const RunFilter& filter) {
  if (filter.loop_id) s.bind(1, *filter.loop_id);
  if (filter.status) s.bind(2, run_status_name(*filter.status));
  if (filter.after) s.bind(5, filter.after->created_at).bind(6, filter.after->id);
}

}  // namespace

Result<std::vector<Run>> SqlStore::list_runs(const RunFilter& filter) {
  const std::string where =
      run_filter_where(filter) + " ORDER BY created_at DESC, id DESC LIMIT ?3 OFFSET ?4";
  // Without the output tails (up to 256 KiB each): get_run reads them.
  return query_runs(
      select_runs(where, false),
      [&](sql::Statement& s) {
        bind_run_filter(s, filter);
        s.bind(3, filter.limit).bind(4, filter.offset);
      },
      false);
}

Result<std::int64_t> SqlStore::count_matching_runs(const RunFilter& filter) {
  return sql::count_rows(*db_, "SELECT COUNT(*) FROM runs " + run_filter_where(filter),
                         [&](sql::Statement& s) { bind_run_filter(s, filter); });
}

Result<std::int64_t> SqlStore::count_runs(std::optional<RunStatus> status) {
  RunFilter filter;
  filter.status = status;
  return count_matching_runs(filter);
}

// Within an open transaction: claims one slot, or returns nothing when the
// slot is held, finished or out of attempts, or (with `refused` set) when
// the loop's status forbids it.
Result<std::optional<ClaimedRun>> SqlStore::claim_in_transaction(const SlotRequest& request,
                                                                 const std::string& claimant,
                                                                 TimeMs now, bool settled,
                                                                 std::string& refused) {
  using Claimed = std::optional<ClaimedRun>;
  auto loop = claim_terms(*db_, request.loop_id, now);
  if (!loop) return loop.error();
  if (!loop->has_value()) return not_found_error("no loop has the id '" + request.loop_id + "'");
  refused = refusal(**loop, request.manual, now);
  if (!refused.empty()) {
    if (past_expiry(**loop, now) && (*loop)->status == LoopStatus::kActive) {
      if (auto expired = expire_loop(request.loop_id, now); !expired) return expired.error();
    }
    return Claimed{};
  }
  auto existing = get_run_by_slot(request.loop_id, request.slot);
  if (!existing) return existing.error();
  const TimeMs lease_until = add_saturating(now, (*loop)->lease_ms);
  // The claimant's host: where the supervisor is started, and the logs kept.
  const std::string host = probe_->host_name();

  std::string run_id;
  if (!existing->has_value()) {
    run_id = new_id(now);
    const std::string token = "g1-" + random_hex(10);
    auto insert = db_->prepare(
        "INSERT INTO runs (id, loop_id, loop_name, scheduled_for, attempt, status, started_at, "
        "claimed_by, claim_token, claim_generation, lease_expires_at, settled, host, "
        "created_at, updated_at) VALUES (?1, ?2, ?3, ?4, 1, 'running', ?5, ?6, ?7, 1, ?8, ?9, "
        "?10, ?5, ?5) ON CONFLICT (loop_id, scheduled_for) DO NOTHING");
    if (!insert) return insert.error();
    (*insert)
        ->bind(1, run_id)
        .bind(2, request.loop_id)
        .bind(3, (*loop)->name)
        .bind(4, request.slot)
        .bind(5, now)
        .bind(6, claimant)
        .bind(7, token)
        .bind(8, lease_until)
        .bind(9, settled ? 1 : 0)
        .bind(10, host);
    if (auto status = (*insert)->run(); !status) return status.error();
    if (db_->changes() != 1) return Claimed{};
  } else if ((*existing)->status == RunStatus::kQueued) {
    // A queued slot starts: its first attempt, nothing of it ran yet. It is
    // a slot the daemon planned, so whoever starts it (a manual claim too)
    // its finish is settled: a loop may be waiting for it (docs/storage.md,
    // "Queued runs").
    run_id = (*existing)->id;
    auto start = db_->prepare(
        "UPDATE runs SET status = 'running', started_at = ?2, claimed_by = ?3, "
        "claim_generation = claim_generation + 1, "
        "claim_token = 'g' || (claim_generation + 1) || '-' || ?4, lease_expires_at = ?5, "
        "settled = 0, host = ?6, updated_at = ?2 WHERE id = ?1 AND status = 'queued'");
    if (!start) return start.error();
    (*start)
        ->bind(1, run_id)
        .bind(2, now)
        .bind(3, claimant)
        .bind(4, random_hex(10))
        .bind(5, lease_until)
        .bind(6, host);
    if (auto status = (*start)->run(); !status) return status.error();
    if (db_->changes() != 1) return Claimed{};
  } else {
    const Run& run = **existing;
    run_id = run.id;
    const Reattempt kind = reclaim_kind(run, now, liveness(run, *probe_), (*loop)->max_attempts);
    if (kind == Reattempt::kNone) return Claimed{};
    // Guarded by what was read: status, attempt and free re-attempts (and,
    // for a running row, an expired lease). A slot whose finish is not yet
    // settled stays unsettled, so that its effect on the loop is not lost.
    auto update = db_->prepare(
        "UPDATE runs SET status = 'running', attempt = attempt + ?6, "
        "free_reattempts = free_reattempts + ?8, started_at = ?2, finished_at = NULL, "
        "claimed_by = ?3, claim_generation = claim_generation + 1, "
        "claim_token = 'g' || (claim_generation + 1) || '-' || ?4, lease_expires_at = ?7, "
        "pid = NULL, process_started_at = NULL, pgid = NULL, supervisor_pid = NULL, "
        "supervisor_started_at = NULL, exit_code = NULL, signal = NULL, duration_ms = NULL, "
        "error = '', skip_reason = '', stdout = '', stderr = '', input_tokens = NULL, "
        "output_tokens = NULL, cost_usd = NULL, usage_limited = 0, next_in_ms = NULL, "
        "cancel_requested = 0, "
        "settled = CASE WHEN settled < ?12 THEN settled ELSE ?12 END, host = ?13, "
        "updated_at = ?2 WHERE id = "
        "?1 AND status = ?9 AND attempt = "
        "?10 AND free_reattempts = ?11 "
        "AND (status != 'running' OR lease_expires_at <= ?2)");
    if (!update) return update.error();
    (*update)
        ->bind(1, run_id)
        .bind(2, now)
        .bind(3, claimant)
        .bind(4, random_hex(10))
        .bind(6, kind == Reattempt::kOrdinary ? 1 : 0)
        .bind(7, lease_until)
        .bind(8, kind == Reattempt::kFree ? 1 : 0)
        .bind(9, run_status_name(run.status))
        .bind(10, run.attempt)
        .bind(11, run.free_reattempts)
        .bind(12, settled ? 1 : 0)
        .bind(13, host);
    if (auto status = (*update)->run(); !status) return status.error();
    if (db_->changes() != 1) return Claimed{};
  }
  auto claimed = get_run(run_id);
  if (!claimed) return claimed.error();
  if (!claimed->has_value()) return internal_error("claimed run " + run_id + " vanished");
  const Run& run = **claimed;
  return Claimed{ClaimedRun{run, Claim{run.id, run.claimed_by, run.claim_token}}};
}

Result<std::optional<ClaimedRun>> SqlStore::claim_slot(const SlotRequest& slot,
                                                       const std::string& claimant, TimeMs now,
                                                       const Fence& fence) {
  std::string refused;
  auto claimed = claim_batch({slot}, claimant, now, fence, refused);
  if (!claimed) return claimed.error();
  if (!refused.empty()) return conflict_error(refused);
  if (claimed->empty()) return std::optional<ClaimedRun>{};
  return std::optional<ClaimedRun>{std::move(claimed->front())};
}

Result<std::vector<ClaimedRun>> SqlStore::claim_slots(const std::vector<SlotRequest>& slots,
                                                      const std::string& claimant, TimeMs now,
                                                      const Fence& fence) {
  std::string refused;
  return claim_batch(slots, claimant, now, fence, refused);
}

Result<std::vector<ClaimedRun>> SqlStore::claim_batch(const std::vector<SlotRequest>& slots,
                                                      const std::string& claimant,
                                                      TimeMs caller_now, const Fence& fence,
                                                      std::string& first_refusal) {
  if (claimant.empty()) return usage_error("a claimant cannot be empty");
  auto now = clock(caller_now);
  if (!now) return now.error();
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  if (auto fenced = check_fence_at(fence, *now); !fenced) return fenced.error();
  std::vector<ClaimedRun> claimed;
  bool left_pending = false;
  for (const SlotRequest& slot : slots) {
    std::string refused;
    auto one = claim_in_transaction(slot, claimant, *now, /*settled=*/true, refused);
    if (!one) return one.error();
    if (one->has_value() && slot.to_runners) {
      auto pending = leave_to_runners((*one)->run, *now);
      if (!pending) return pending.error();
      claimed.push_back(ClaimedRun{std::move(*pending), Claim{}});
      left_pending = true;
    } else if (one->has_value()) {
      claimed.push_back(std::move(**one));
    }
    if (first_refusal.empty()) first_refusal = refused;
  }
  if (left_pending) {
    if (auto noticed = notify_daemons(); !noticed) return noticed.error();
  }
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return claimed;
}

Result<Run> SqlStore::record_skipped(const Loop& loop, TimeMs slot, const std::string& reason,
                                     TimeMs now, const Fence& fence) {
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  if (auto fenced = check_fence(fence, now); !fenced) return fenced.error();
  auto insert = db_->prepare(
      "INSERT INTO runs (id, loop_id, loop_name, scheduled_for, attempt, status, finished_at, "
      "skip_reason, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, 1, 'skipped', ?5, ?6, ?5, ?5) "
      "ON CONFLICT (loop_id, scheduled_for) DO NOTHING");
  if (!insert) return insert.error();
  (*insert)
      ->bind(1, new_id(now))
      .bind(2, loop.id)
      .bind(3, loop.name)
      .bind(4, slot)
      .bind(5, now)
      .bind(6, reason);
  if (auto status = (*insert)->run(); !status) return status.error();
  auto run = get_run_by_slot(loop.id, slot);
  if (!run) return run.error();
  if (!run->has_value()) return internal_error("skipped slot was not stored");
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return std::move(**run);
}

Result<RecoveryResult> SqlStore::recover_expired_runs(TimeMs caller_now,
                                                      const RecoveryOptions& options,
                                                      const Fence& fence) {
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  const TimeMs now = *clocked;
  if (auto fenced = check_fence_at(fence, now); !fenced) return fenced.error();
  const int limit = std::max(1, std::min(options.limit, 1000));
  auto expired = query_runs(select_runs("WHERE status = 'running' AND lease_expires_at <= ?1 "
                                        "ORDER BY lease_expires_at LIMIT ?2"),
                            [&](sql::Statement& s) { s.bind(1, now).bind(2, limit * 5); });
  if (!expired) return expired.error();
  RecoveryResult result;
  for (const Run& run : *expired) {
    if (int(result.abandoned.size()) >= limit) break;
    // A living supervisor may still finish the run: its lease is extended. An
    // orphaned target is abandoned with the run; the caller kills it
    // (docs/execution.md, "Recovery"), and until it is gone no claim takes
    // the slot.
    const bool alive = liveness(run, *probe_) == Liveness::kSupervised;
    auto transaction = sql::Transaction::begin(*db_);
    if (!transaction) return transaction.error();
    if (auto fenced = check_fence_at(fence, now); !fenced) return fenced.error();
    auto update = db_->prepare(
        alive ? "UPDATE runs SET lease_expires_at = ?3, updated_at = ?2 "
                "WHERE id = ?1 AND status = 'running' AND lease_expires_at <= ?2"
              : "UPDATE runs SET status = 'abandoned', finished_at = ?2, lease_expires_at = NULL, "
                "claim_token = '', error = 'run lease expired before completion', "
                "updated_at = ?2 WHERE id = ?1 AND status = 'running' AND lease_expires_at <= ?2");
    if (!update) return update.error();
    (*update)->bind(1, run.id).bind(2, now);
    if (alive) (*update)->bind(3, add_saturating(now, options.grace_ms));
    if (auto status = (*update)->run(); !status) return status.error();
    const bool changed = db_->changes() == 1;
    if (changed && !alive) {  // the abandoned run was a turn of its loop's goal, if it has one
      RunOutcome abandoned;
      abandoned.status = RunStatus::kAbandoned;
      if (auto turn = account_goal_turn(claim_of(run), abandoned, now); !turn) return turn.error();
    }
    if (auto status = (*transaction)->commit(); !status) return status.error();
    if (!changed) continue;  // finished or reclaimed meanwhile
    auto after = get_run(run.id);
    if (!after) return after.error();
    if (after->has_value()) (alive ? result.deferred : result.abandoned).push_back(**after);
  }
  return result;
}

// One batch of one loop: deletes (or, on a dry run, counts) up to `batch`
// terminal runs of the loop below the bound that --older-than and --keep
// set, in one short transaction. Reads only the loop's range of the index
// runs_loop_created (loop_id, created_at, id).
Result<std::int64_t> SqlStore::prune_loop_batch(const std::string& loop_id,
                                                const PruneOptions& options, int batch,
                                                PruneSummary& summary) {
  // A dry run only reads: it takes no write lock.
  std::unique_ptr<sql::Transaction> transaction;
  if (!options.dry_run) {
    auto begun = sql::Transaction::begin(*db_);
    if (!begun) return begun.error();
    transaction = std::move(*begun);
  }
  // Runs strictly before (created_at, id) are candidates.
  std::pair<TimeMs, std::string> bound{std::numeric_limits<TimeMs>::max(), ""};
  if (options.older_than) bound = {options.now - *options.older_than, ""};
  if (options.keep && *options.keep > 0) {
    // The keep-th newest run: it and every newer one stay.
    auto newest = db_->prepare(
        "SELECT created_at, id FROM runs WHERE loop_id = ?1 "
        "ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?2");
    if (!newest) return newest.error();
    (*newest)->bind(1, loop_id).bind(2, *options.keep - 1);
    auto row = (*newest)->step();
    if (!row) return row.error();
    if (!*row) return 0;  // no more than `keep` runs
    bound =
        std::min(bound, std::pair<TimeMs, std::string>{(*newest)->int64(0), (*newest)->text(1)});
  }
  const std::string candidates =
      std::string(
          "SELECT id FROM runs WHERE loop_id = ?1 AND (created_at, id) < (?2, ?3) "
          "AND status IN ") +
      sql::kTerminalRunStatuses;
  auto statement =
      db_->prepare(options.dry_run ? "SELECT COUNT(*) FROM (" + candidates + ") AS candidates"
                                   : "DELETE FROM runs WHERE id IN (" + candidates +
                                         " ORDER BY created_at, id LIMIT ?4) AND status IN " +
                                         sql::kTerminalRunStatuses + " RETURNING id");
  if (!statement) return statement.error();
  (*statement)->bind(1, loop_id).bind(2, bound.first).bind(3, bound.second);
  if (!options.dry_run) (*statement)->bind(4, batch);
  std::int64_t count = 0;
  while (true) {
    auto row = (*statement)->step();
    if (!row) return row.error();
    if (!*row) break;
    if (options.dry_run) {
      count = (*statement)->int64(0);
    } else {
      summary.run_ids.push_back((*statement)->text(0));
      ++count;
    }
  }
  if (transaction) {
    if (auto status = transaction->commit(); !status) return status.error();
  }
  return count;
}

Result<PruneSummary> SqlStore::prune_runs(const PruneOptions& options) {
  if (!options.older_than && !options.keep) {
    return usage_error("prune needs --older-than and/or --keep");
  }
  if (options.keep && *options.keep < 0) {
    return usage_error("--keep " + std::to_string(*options.keep) + " cannot be negative");
  }
  // A damaged database is refused before anything is deleted from it.
  if (auto intact = db_->check_integrity(); !intact) return intact.error();
  std::vector<std::string> loop_ids;
  {
    auto loops = db_->prepare(
        "SELECT id FROM loops WHERE EXISTS (SELECT 1 FROM runs WHERE runs.loop_id = loops.id) "
        "ORDER BY id");
    if (!loops) return loops.error();
    while (true) {
      auto row = (*loops)->step();
      if (!row) return row.error();
      if (!*row) break;
      loop_ids.push_back((*loops)->text(0));
    }
  }
  constexpr int kBatch = 500;
  PruneSummary summary;
  for (const std::string& loop_id : loop_ids) {
    while (true) {
      auto count = prune_loop_batch(loop_id, options, kBatch, summary);
      if (!count) return count.error();
      summary.runs += *count;
      if (options.dry_run || *count < kBatch) break;
    }
  }
  return summary;
}

// A kept outcome recorded by recovery: one guarded statement, checked.
}  // namespace orrery
