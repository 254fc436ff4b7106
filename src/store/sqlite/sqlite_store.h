// SqliteStore: the Store on one SQLite database file (the embedded default).
//
// Each write that could race is one guarded statement inside BEGIN IMMEDIATE,
// and its row count is checked. Times are INTEGER milliseconds UTC.
#pragma once

#include <functional>
#include <memory>
#include <random>
#include <string>

#include "store/sqlite/database.h"
#include "store/store.h"

namespace orrery {
namespace sqlite {
enum class LoopPart;  // store/sqlite/rows.h
}

// A database another process holds is retried this long, then the operation
// fails as unavailable (exit 75; docs/storage.md).
inline constexpr int kDefaultBusyTimeoutMs = 5000;

struct SqliteOptions {
  std::string path;  // the database file
  sqlite::Synchronous synchronous = sqlite::Synchronous::kNormal;
  int busy_timeout_ms = kDefaultBusyTimeoutMs;  // how long a busy database is retried
  std::shared_ptr<const ProcessProbe> probe;    // required
  TimeMs now = 0;                               // for schema_migrations.applied_at
  std::string vfs = "";  // empty: SQLite's default; tests name sqlite::kFaultVfsName
};

class SqliteStore final : public Store {
 public:
  // Opens the database, creating it 0600 (and its directory 0700), migrating
  // it to the latest schema; then active loops past their expiry at
  // options.now become expired (docs/storage.md, "Expiry").
  static Result<std::unique_ptr<SqliteStore>> open(const SqliteOptions& options);

  Status create_loop(const Loop& loop) override;
  Result<std::optional<Loop>> get_loop(const std::string& id) override;
  Result<Loop> resolve_loop(const std::string& text) override;
  Result<std::vector<Loop>> list_loops(const LoopFilter& filter) override;
  Result<std::int64_t> count_loops(const LoopFilter& filter) override;
  Result<std::vector<DueLoop>> due_loops(TimeMs now, int limit) override;
  Status update_loop_parts(const Loop& loop, LoopParts parts, const Fence& fence,
                           TimeMs now) override;
  Result<std::vector<std::string>> delete_loop(const std::string& id) override;
  Result<int> expire_loops(TimeMs now, const Fence& fence) override;

  Result<std::vector<ClaimedRun>> claim_slots(const std::vector<SlotRequest>& slots,
                                              const std::string& claimant, TimeMs now,
                                              const Fence& fence) override;
  Result<std::optional<ClaimedRun>> claim_slot(const SlotRequest& slot, const std::string& claimant,
                                               TimeMs now, const Fence& fence) override;
  Status record_supervisor(const Claim& claim, const ProcessIdentity& supervisor,
                           TimeMs now) override;
  Status record_process(const Claim& claim, const ProcessIdentity& target, std::optional<int> pgid,
                        const ProcessIdentity& supervisor, TimeMs now) override;
  Status heartbeat_run(const Claim& claim, DurationMs lease_ms, TimeMs now) override;
  Status finalize_run(const Claim& claim, const RunOutcome& outcome, TimeMs now) override;
  Status finalize_expired_run(const std::string& run_id, const std::string& claim_token,
                              const RunOutcome& outcome, TimeMs finished_at, TimeMs now) override;
  Result<std::vector<LoopPlanResult>> commit_plans(const std::vector<LoopPlanCommit>& plans,
                                                   const std::string& claimant, TimeMs now,
                                                   const Fence& fence) override;
  Result<std::vector<Run>> unsettled_runs(int limit) override;
  Status settle_run(const std::string& run_id, std::int64_t state_version,
                    const ScheduleState& state, TimeMs now, const Fence& fence) override;
  Result<std::vector<Run>> active_runs(int limit) override;
  Status set_run_next_in(const std::string& run_id, DurationMs delay, TimeMs now) override;
  Result<WakeTimes> wake_times(TimeMs now) override;
  Result<Run> record_skipped(const Loop& loop, TimeMs slot, const std::string& reason, TimeMs now,
                             const Fence& fence) override;
  Result<std::optional<Run>> get_run(const std::string& id) override;
  Result<std::optional<Run>> get_run_by_slot(const std::string& loop_id, TimeMs slot) override;
  Result<std::vector<Run>> list_runs(const RunFilter& filter) override;
  Result<std::int64_t> count_runs(std::optional<RunStatus> status) override;
  Result<std::int64_t> count_matching_runs(const RunFilter& filter) override;
  Result<Run> resolve_run(const std::string& text) override;
  Result<RecoveryResult> recover_expired_runs(TimeMs now, const RecoveryOptions& options,
                                              const Fence& fence) override;
  Result<PruneSummary> prune_runs(const PruneOptions& options) override;

  Result<Cooldown> record_cooldown(const std::string& account, std::optional<TimeMs> reset_at,
                                   const std::string& reason, TimeMs now) override;
  Result<std::vector<Cooldown>> active_cooldowns(TimeMs now) override;

  Result<std::optional<DaemonLease>> acquire_daemon_lease(const ProcessIdentity& holder,
                                                          DurationMs ttl_ms, TimeMs now) override;
  Status heartbeat_daemon_lease(const std::string& lease_id, DurationMs ttl_ms,
                                TimeMs now) override;
  Status release_daemon_lease(const std::string& lease_id) override;
  Result<std::optional<DaemonLease>> get_daemon_lease() override;
  Status check_fence(const Fence& fence, TimeMs now) override;

  sqlite::Database& database() { return *db_; }

 private:
  SqliteStore(std::unique_ptr<sqlite::Database> db, std::shared_ptr<const ProcessProbe> probe);

  std::string new_id(TimeMs now);
  Status expire_loop(const std::string& id, TimeMs now);
  Result<bool> write_loop_part(const Loop& loop, sqlite::LoopPart part, TimeMs now);
  // Within an open transaction: the loop's schedule state, guarded by its
  // state version; false when the version moved or the loop is gone.
  Result<bool> write_schedule_state(const std::string& loop_id, std::int64_t state_version,
                                    const ScheduleState& state, TimeMs now);
  Status commit_loop_plan(const LoopPlanCommit& plan, const std::string& claimant, TimeMs now,
                          LoopPlanResult& result);
  Status hand_to_settlement(const std::string& loop_id, TimeMs slot, TimeMs now);
  Result<bool> insert_planned_row(const std::string& loop_id, TimeMs slot, RunStatus status,
                                  const std::string& skip_reason, TimeMs now, std::string& run_id);
  Result<std::string> deletion_refusal(const std::string& id);
  Result<bool> any_loop_to_expire(TimeMs now);
  std::string random_hex(int bytes);
  // `settled`: what a claim sets runs.settled to (false for the daemon's
  // planned runs, docs/storage.md "Settling a finished run").
  Result<std::optional<ClaimedRun>> claim_in_transaction(const SlotRequest& slot,
                                                         const std::string& claimant, TimeMs now,
                                                         bool settled, std::string& refused);
  Result<std::vector<ClaimedRun>> claim_batch(const std::vector<SlotRequest>& slots,
                                              const std::string& claimant, TimeMs now,
                                              const Fence& fence, std::string& first_refusal);
  Status guarded_run_update(const char* sql, const Claim& claim, TimeMs now,
                            const std::function<void(sqlite::Statement&)>& bind_rest,
                            const char* action);
  Result<std::vector<Loop>> query_loops(const std::string& sql,
                                        const std::function<void(sqlite::Statement&)>& bind);
  Result<std::vector<Run>> query_runs(const std::string& sql,
                                      const std::function<void(sqlite::Statement&)>& bind,
                                      bool with_tails = true);
  Result<std::int64_t> prune_loop_batch(const std::string& loop_id, const PruneOptions& options,
                                        int batch, PruneSummary& summary);

  std::unique_ptr<sqlite::Database> db_;
  std::shared_ptr<const ProcessProbe> probe_;
  std::mt19937_64 random_;
};

}  // namespace orrery
