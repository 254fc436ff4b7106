// SqlStore: the one implementation of the Store, over a Connection to
// SQLite (the embedded default, store/sqlite/) or PostgreSQL
// (store/postgres/): the same SQL, the same guards, the same conformance
// suite (docs/storage.md, "One store, two databases").
//
// Each write that could race is one guarded statement whose row count is
// checked, or runs under the row lock it needs (Connection::row_lock), so
// that it holds under SQLite's single writer and under PostgreSQL's READ
// COMMITTED alike. Times are integer milliseconds UTC; where the database
// has a clock of its own (a server shared by several hosts), leases are
// taken and compared on that clock, not the caller's (docs/storage.md,
// "Whose clock").
#pragma once

#include <functional>
#include <memory>
#include <random>
#include <string>

#include "store/sql/connection.h"
#include "store/store.h"

namespace orrery {
namespace sql {
enum class LoopPart;  // store/sql/rows.h
}

class SqlStore : public Store {
 public:
  // Times given by callers are used as they are when `trust_caller_clock`;
  // otherwise the server's clock replaces them (when the database has one).
  SqlStore(std::unique_ptr<sql::Connection> db, std::shared_ptr<const ProcessProbe> probe,
           bool trust_caller_clock);

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
  Status heartbeat_claim(const Claim& claim, DurationMs lease_ms, TimeMs now) override;
  Status finish_claim(const Claim& claim, const RunOutcome& outcome, TimeMs now) override;
  Status finish_expired_claim(const Claim& claim, const RunOutcome& outcome, TimeMs finished_at,
                              TimeMs now) override;
  Result<std::vector<LoopPlanResult>> commit_plans(const std::vector<LoopPlanCommit>& plans,
                                                   const std::string& claimant, TimeMs now,
                                                   const Fence& fence) override;
  Result<std::vector<ClaimedRun>> claim_pending(const std::string& claimant,
                                                const std::string& labels, int limit,
                                                TimeMs now) override;
  Result<RunStatus> request_cancel(const std::string& run_id, const std::string& reason,
                                   TimeMs now) override;
  Result<std::vector<Run>> running_cancel_requests(const std::string& claimant) override;
  Result<int> listen_for_notices() override;
  Result<bool> take_notices() override;
  Result<std::vector<Run>> unsettled_runs(int limit) override;
  Result<std::vector<Status>> settle_runs(const std::vector<Settlement>& settlements, TimeMs now,
                                          const Fence& fence) override;
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

  Result<Workflow> create_workflow(const WorkflowSpec& spec, const std::string& id,
                                   TimeMs now) override;
  Result<std::optional<Workflow>> get_workflow(const std::string& id) override;
  Result<Workflow> resolve_workflow(const std::string& text, std::optional<int> version) override;
  Result<std::vector<Workflow>> list_workflows(bool all_versions) override;
  Result<PublishedRun> publish_workflow_run(const NewWorkflowRun& run, const PublishHooks& hooks,
                                            TimeMs now) override;
  Result<std::optional<WorkflowRun>> get_workflow_run(const std::string& id) override;
  Result<WorkflowRun> resolve_workflow_run(const std::string& text) override;
  Result<std::vector<WorkflowRun>> list_workflow_runs(const WorkflowRunFilter& filter) override;
  Result<std::int64_t> count_workflow_runs(const WorkflowRunFilter& filter) override;
  Result<std::vector<StepRun>> list_step_runs(const std::string& run_id) override;
  Result<std::vector<StepAttempt>> list_step_attempts(const std::string& run_id) override;
  Result<std::optional<StepAttempt>> get_step_attempt(const std::string& dispatch_id) override;
  Result<std::vector<WorkflowEvent>> list_workflow_events(const std::string& run_id,
                                                          std::int64_t after_sequence,
                                                          int limit) override;
  Result<std::optional<EngineFence>> acquire_engine_lease(const std::string& run_id,
                                                          const std::string& driver,
                                                          DurationMs ttl_ms, TimeMs now) override;
  Status heartbeat_engine_lease(const EngineFence& fence, DurationMs ttl_ms, TimeMs now) override;
  Status release_engine_lease(const EngineFence& fence) override;
  Result<std::vector<WorkflowRun>> workflow_runs_without_driver(TimeMs now, int limit) override;
  Result<Reservation> reserve_step_attempt(const EngineFence& fence, const StepReserve& request,
                                           TimeMs now) override;
  Status advance_workflow_run(const EngineFence& fence, const WorkflowAdvance& advance,
                              TimeMs now) override;
  Result<WorkflowRun> request_workflow_cancel(const std::string& run_id, TimeMs now) override;

  Result<Route> create_route(const Route& route, TimeMs now) override;
  Result<Route> resolve_route(const std::string& text) override;
  Result<std::optional<Route>> get_route(const std::string& id) override;
  Result<std::vector<Route>> list_routes() override;
  Result<std::map<std::string, ItemCounts>> count_items_by_route() override;
  Result<Route> update_route(const Route& route, TimeMs now) override;
  Result<std::vector<std::string>> delete_route(const std::string& id, bool force) override;
  Result<std::optional<std::string>> route_of_workflow(const std::string& workflow_id) override;
  Result<Enqueued> enqueue_item(const WorkItem& item, TimeMs now) override;
  Result<std::vector<Enqueued>> enqueue_items(const std::vector<WorkItem>& items,
                                              TimeMs now) override;
  Result<std::optional<WorkItem>> get_item(const std::string& id) override;
  Result<WorkItem> resolve_item(const std::string& text) override;
  Result<std::vector<WorkItem>> list_items(const ItemFilter& filter) override;
  Result<std::int64_t> count_items(const ItemFilter& filter) override;
  Result<WorkItem> requeue_item(const std::string& id, const std::string& reason,
                                TimeMs now) override;
  Result<WorkItem> cancel_item(const std::string& id, const std::string& reason,
                               TimeMs now) override;
  Result<AdmissionQueue> read_admission_queue(const AdmissionRead& read,
                                              const Fence& fence) override;
  Result<AdmissionQueue> admission_snapshot() override;
  Result<std::vector<WorkItem>> admit_items(const std::vector<std::string>& ids,
                                            int global_max_running, TimeMs now,
                                            const Fence& fence) override;
  Result<std::vector<WorkItem>> admitted_items(int limit) override;
  Status start_item(const std::string& id, const std::string& workflow_run_id, TimeMs now,
                    const Fence& fence) override;
  Result<WorkItem> return_item(const std::string& id, const std::string& reason, TimeMs now,
                               const Fence& fence) override;
  Result<std::vector<FinishedItemRun>> finished_item_runs(int limit) override;
  Status settle_item(const ItemSettlement& settlement, TimeMs now, const Fence& fence) override;
  Result<std::int64_t> prune_items(TimeMs before, bool dry_run) override;
  Result<std::vector<RunFeed>> pending_feeds(const std::string& host, int limit) override;
  Result<RunFeed> record_feed(const std::string& run_id, const ItemLines& lines,
                              TimeMs now) override;
  Result<RunFeed> fail_feed(const std::string& run_id, const std::string& error,
                            TimeMs now) override;
  Result<std::optional<RunFeed>> get_feed(const std::string& run_id) override;

  Status register_runner(const RunnerRecord& runner, TimeMs now) override;

  Status heartbeat_runner(const std::string& id, TimeMs now) override;
  Status remove_runner(const std::string& id) override;
  Result<std::vector<RunnerRecord>> list_runners() override;

  Result<std::optional<DaemonLease>> acquire_daemon_lease(const ProcessIdentity& holder,
                                                          DurationMs ttl_ms, TimeMs now) override;
  Status heartbeat_daemon_lease(const std::string& lease_id, DurationMs ttl_ms,
                                TimeMs now) override;
  Status release_daemon_lease(const std::string& lease_id, TimeMs now) override;
  Result<std::optional<DaemonLease>> get_daemon_lease() override;
  Status check_fence(const Fence& fence, TimeMs now) override;

  Result<Goal> create_goal(const Goal& goal, TimeMs now) override;
  Result<std::optional<Goal>> get_goal(const std::string& id) override;
  Result<Goal> resolve_goal(const std::string& text) override;
  Result<std::vector<Goal>> list_goals(const GoalFilter& filter) override;
  Result<std::vector<GoalTurn>> list_turns(const std::string& goal_id, int limit) override;
  Result<std::int64_t> count_goals(const GoalFilter& filter) override;
  Result<std::int64_t> count_turns(const std::string& goal_id) override;
  Result<Goal> change_goal(const std::string& id, const GoalEdit& edit, TimeMs now) override;
  Result<std::optional<Goal>> goal_of_work(const Claim& claim, TimeMs now) override;
  Result<int> reopen_cooled_goals(TimeMs now, const Fence& fence) override;
  Result<std::map<std::string, std::string>> workflow_goal_holds(TimeMs now) override;

  Result<Worker> create_worker(const Worker& worker, TimeMs now) override;
  Result<std::optional<Worker>> get_worker(const std::string& id) override;
  Result<std::optional<Worker>> find_worker(const std::string& workflow_run_id,
                                            const std::string& step_id) override;
  Result<Worker> resolve_worker(const std::string& text) override;
  Result<std::vector<Worker>> list_workers(const WorkerFilter& filter) override;
  Result<std::int64_t> count_workers(const WorkerFilter& filter) override;
  Result<std::vector<WorkerEvent>> worker_events(const std::string& id) override;
  Result<Worker> change_worker(const WorkerChange& change, TimeMs now) override;
  Status heartbeat_worker(const std::string& id, const std::string& owner, DurationMs lease_ms,
                          TimeMs now) override;

  Status configure_queue(const QueueConfig& config, TimeMs now) override;
  Result<std::optional<QueueConfig>> queue_config(const std::string& repo) override;
  Result<MergeEntry> enqueue_merge(const MergeEntry& entry, TimeMs now) override;
  Result<MergeEntry> resolve_merge_entry(const std::string& text) override;
  Result<std::vector<MergeEntry>> list_merge_entries(const MergeFilter& filter) override;
  Result<std::int64_t> count_merge_entries(const MergeFilter& filter) override;
  Result<MergeEntry> change_merge_entry(const MergeChange& change, TimeMs now) override;
  Result<bool> lease_queue(const QueueKey& queue, const QueueHolder& holder, DurationMs lease_ms,
                           TimeMs now) override;
  Result<std::vector<QueueKey>> queues_with_work(TimeMs now) override;

  Status note_overlap(const WorkerOverlap& overlap, TimeMs now) override;

  Result<std::vector<JournalEvent>> events_after(std::int64_t after, int limit) override;
  Result<std::int64_t> last_event_id() override;

  // StoreMetrics (sql_metrics.cc)
  Result<MetricsSnapshot> metrics_snapshot(const MetricsBounds& bounds, TimeMs now) override;

  // IdHandles (sql_id_handles.cc)
  Result<std::size_t> handle_length(IdTable table, const std::vector<std::string>& ids) override;

  sql::Connection& connection() { return *db_; }

 private:
  Result<RunFeed> take_feed(const std::string& run_id, TimeMs now);
  Status close_feed(const RunFeed& feed, TimeMs now);
  Result<RunFeed> end_feed(const std::string& run_id, TimeMs now,
                           const std::function<Status(RunFeed&)>& outcome);
  Result<std::vector<Enqueued>> enqueue_in_transaction(const std::vector<WorkItem>& items,
                                                       TimeMs now);
  // `now`, or the database server's clock when it has one and callers' clocks
  // are not trusted (docs/storage.md, "Whose clock"): read from the server at
  // most once per kServerClockReuseMs, in between carried forward by this
  // machine's boot-time clock (which counts a suspend), so that a burst of
  // writes costs no round trip each for the time.
  Result<TimeMs> clock(TimeMs now);

  std::string new_id(TimeMs now);
  Status expire_loop(const std::string& id, TimeMs now);
  // The routes, candidates and holders of the admission queue.
  Result<AdmissionQueue> read_queue();
  Result<bool> write_loop_part(const Loop& loop, sql::LoopPart part, TimeMs now);
  // Within an open transaction: the loop's schedule state, guarded by its
  // state version; false when the version moved or the loop is gone.
  Result<bool> write_schedule_state(const std::string& loop_id, std::int64_t state_version,
                                    const ScheduleState& state, TimeMs now);
  Status commit_loop_plan(const LoopPlanCommit& plan, const std::string& claimant, TimeMs now,
                          LoopPlanResult& result);
  Status hand_to_settlement(const std::string& loop_id, TimeMs slot, TimeMs now);
  // Within an open transaction: a run just claimed for the committing daemon
  // left pending for any runner instead.
  Result<Run> leave_to_runners(const Run& claimed, TimeMs now);
  // Notifies every daemon listening (runners, the scheduler) that runs were
  // left pending, a cancel was requested or loops changed (inside a write
  // transaction: when it commits).
  Status notify_daemons();
  // Within settle_runs' transaction: one settlement; a conflict or
  // not_found as its outcome (nothing written), an Error for a failure.
  Result<Status> settle_one(const Settlement& settlement, TimeMs now);
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
  // An UPDATE of one run under the claim guard, at the clock's time (bound
  // at ?4 and given to bind_rest).
  using BindAt = std::function<void(sql::Statement&, TimeMs)>;
  // The rows each kind of claimed work is (core/work_kind.h): runs, or step
  // attempts (whose claim id is the dispatch id).
  struct ClaimedRows {
    const char* table;
    const char* key;       // the id column
    const char* finished;  // what a lost claim may be: "a finished run"
    bool has_duration;     // a duration_ms column, set on finishing
    bool has_outputs;      // an outputs_json column, set on finishing
  };
  static const ClaimedRows& claimed_rows(WorkKind kind);
  Status guarded_claim_update(const char* assignments, const Claim& claim, TimeMs caller_now,
                              const BindAt& bind_rest, const char* action);
  // Within the transaction that finishes a piece of claimed work: the turn
  // of the goal it served, if any (store/goal_book.h).
  Status account_goal_turn(const Claim& claim, const RunOutcome& outcome, TimeMs now);
  // Within an open transaction: what a goal's change of status does to its
  // target's loop (paused when it stops the target, resumed when it is
  // active again and had paused the loop).
  Status follow_goal_status(const Goal& before, const Goal& after, TimeMs now);
  // Within an open transaction: change_worker's guarded change and its event.
  Result<Worker> change_worker_in_transaction(const WorkerChange& change, TimeMs now);
  Status take_over_loop(const Goal& goal, TimeMs now);
  // Within advance_workflow_run's transaction, when the run finishes: the
  // turn of its workflow's goal, its tokens those of all its attempts.
  Status account_workflow_turn(const std::string& run_id, const WorkflowAdvance& advance,
                               TimeMs now);
  // Within publish_workflow_run's transaction, before the run is written:
  // the goal it is published under (run.goal_id), or the hold that refuses
  // it (core/goal_hold.h); empty: none.
  Result<std::string> govern_new_run(WorkflowRun& run, TimeMs now);
  Status record_turn(const std::string& target_key, const std::string& goal_id, TurnInput input,
                     const GoalTurn& ids, const std::string& work_id);
  // A queue's lease row as stored (an empty driver when there is none).
  struct QueueLease {
    std::string driver;
    std::optional<TimeMs> expires_at;
    ProcessIdentity process;
    std::string host;
  };
  Result<QueueLease> read_queue_lease(const QueueKey& queue, bool lock);
  bool lease_is_live(const QueueLease& lease, TimeMs now) const;
  Result<std::optional<DaemonLease>> read_daemon_lease(std::string_view lock);
  // Inside a write transaction: the lease row, locked for update.
  Result<std::optional<DaemonLease>> locked_daemon_lease();
  // check_fence at a time already taken from clock().
  Status check_fence_at(const Fence& fence, TimeMs now);
  Result<std::vector<Loop>> query_loops(const std::string& sql,
                                        const std::function<void(sql::Statement&)>& bind);
  Result<std::vector<Run>> query_runs(const std::string& sql,
                                      const std::function<void(sql::Statement&)>& bind,
                                      bool with_tails = true);
  Result<std::int64_t> prune_loop_batch(const std::string& loop_id, const PruneOptions& options,
                                        int batch, PruneSummary& summary);

  std::unique_ptr<sql::Connection> db_;
  std::shared_ptr<const ProcessProbe> probe_;
  std::mt19937_64 random_;
  bool trust_caller_clock_;
  std::optional<TimeMs> server_reading_;  // the server's clock when last read
  std::int64_t server_read_at_ = 0;       // this machine's boot-time clock then (ms)
};

}  // namespace orrery
