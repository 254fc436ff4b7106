// A Store that forwards every call to another, for tests that override a
// few calls to inject faults (e.g. a heartbeat that fails transiently).
#pragma once

#include "store/store.h"

namespace orrery::testing {

class ForwardingStore : public Store {
 public:
  explicit ForwardingStore(Store& inner) : inner_(inner) {}

  Status create_loop(const Loop& loop) override { return inner_.create_loop(loop); }
  Result<std::optional<Loop>> get_loop(const std::string& id) override {
    return inner_.get_loop(id);
  }
  Result<Loop> resolve_loop(const std::string& text) override { return inner_.resolve_loop(text); }
  Result<std::vector<Loop>> list_loops(const LoopFilter& filter) override {
    return inner_.list_loops(filter);
  }
  Result<std::int64_t> count_loops(const LoopFilter& filter) override {
    return inner_.count_loops(filter);
  }
  Result<std::vector<DueLoop>> due_loops(TimeMs now, int limit) override {
    return inner_.due_loops(now, limit);
  }
  Status update_loop_parts(const Loop& loop, LoopParts parts, const Fence& fence,
                           TimeMs now) override {
    return inner_.update_loop_parts(loop, parts, fence, now);
  }
  Result<std::vector<std::string>> delete_loop(const std::string& id) override {
    return inner_.delete_loop(id);
  }
  Result<int> expire_loops(TimeMs now, const Fence& fence) override {
    return inner_.expire_loops(now, fence);
  }
  Result<std::vector<ClaimedRun>> claim_slots(const std::vector<SlotRequest>& slots,
                                              const std::string& claimant, TimeMs now,
                                              const Fence& fence) override {
    return inner_.claim_slots(slots, claimant, now, fence);
  }
  Result<std::optional<ClaimedRun>> claim_slot(const SlotRequest& slot, const std::string& claimant,
                                               TimeMs now, const Fence& fence) override {
    return inner_.claim_slot(slot, claimant, now, fence);
  }
  Status record_supervisor(const Claim& claim, const ProcessIdentity& supervisor,
                           TimeMs now) override {
    return inner_.record_supervisor(claim, supervisor, now);
  }
  Status record_process(const Claim& claim, const ProcessIdentity& target, std::optional<int> pgid,
                        const ProcessIdentity& supervisor, TimeMs now) override {
    return inner_.record_process(claim, target, pgid, supervisor, now);
  }
  Status heartbeat_run(const Claim& claim, DurationMs lease_ms, TimeMs now) override {
    return inner_.heartbeat_run(claim, lease_ms, now);
  }
  Status finalize_run(const Claim& claim, const RunOutcome& outcome, TimeMs now) override {
    return inner_.finalize_run(claim, outcome, now);
  }
  Status finalize_expired_run(const std::string& run_id, const std::string& claim_token,
                              const RunOutcome& outcome, TimeMs finished_at, TimeMs now) override {
    return inner_.finalize_expired_run(run_id, claim_token, outcome, finished_at, now);
  }
  Result<std::vector<LoopPlanResult>> commit_plans(const std::vector<LoopPlanCommit>& plans,
                                                   const std::string& claimant, TimeMs now,
                                                   const Fence& fence) override {
    return inner_.commit_plans(plans, claimant, now, fence);
  }
  Result<std::vector<ClaimedRun>> claim_pending(const std::string& claimant,
                                                const std::string& labels, int limit,
                                                TimeMs now) override {
    return inner_.claim_pending(claimant, labels, limit, now);
  }
  Result<RunStatus> request_cancel(const std::string& run_id, const std::string& reason,
                                   TimeMs now) override {
    return inner_.request_cancel(run_id, reason, now);
  }
  Result<std::vector<Run>> running_cancel_requests(const std::string& claimant) override {
    return inner_.running_cancel_requests(claimant);
  }
  Result<int> listen_for_notices() override { return inner_.listen_for_notices(); }
  Result<bool> take_notices() override { return inner_.take_notices(); }
  Result<std::vector<Run>> unsettled_runs(int limit) override {
    return inner_.unsettled_runs(limit);
  }
  Status settle_run(const std::string& run_id, std::int64_t state_version,
                    const ScheduleState& state, TimeMs now, const Fence& fence) override {
    return inner_.settle_run(run_id, state_version, state, now, fence);
  }
  Result<std::vector<Run>> active_runs(int limit) override { return inner_.active_runs(limit); }
  Status set_run_next_in(const std::string& run_id, DurationMs delay, TimeMs now) override {
    return inner_.set_run_next_in(run_id, delay, now);
  }
  Result<WakeTimes> wake_times(TimeMs now) override { return inner_.wake_times(now); }
  Result<Run> record_skipped(const Loop& loop, TimeMs slot, const std::string& reason, TimeMs now,
                             const Fence& fence) override {
    return inner_.record_skipped(loop, slot, reason, now, fence);
  }
  Result<std::optional<Run>> get_run(const std::string& id) override { return inner_.get_run(id); }
  Result<std::optional<Run>> get_run_by_slot(const std::string& loop_id, TimeMs slot) override {
    return inner_.get_run_by_slot(loop_id, slot);
  }
  Result<std::vector<Run>> list_runs(const RunFilter& filter) override {
    return inner_.list_runs(filter);
  }
  Result<std::int64_t> count_matching_runs(const RunFilter& filter) override {
    return inner_.count_matching_runs(filter);
  }
  Result<Run> resolve_run(const std::string& text) override { return inner_.resolve_run(text); }
  Result<std::int64_t> count_runs(std::optional<RunStatus> status) override {
    return inner_.count_runs(status);
  }
  Result<RecoveryResult> recover_expired_runs(TimeMs now, const RecoveryOptions& options,
                                              const Fence& fence) override {
    return inner_.recover_expired_runs(now, options, fence);
  }
  Result<PruneSummary> prune_runs(const PruneOptions& options) override {
    return inner_.prune_runs(options);
  }
  Result<Cooldown> record_cooldown(const std::string& account, std::optional<TimeMs> reset_at,
                                   const std::string& reason, TimeMs now) override {
    return inner_.record_cooldown(account, reset_at, reason, now);
  }
  Result<std::vector<Cooldown>> active_cooldowns(TimeMs now) override {
    return inner_.active_cooldowns(now);
  }
  Result<Workflow> create_workflow(const WorkflowSpec& spec, const std::string& id,
                                   TimeMs now) override {
    return inner_.create_workflow(spec, id, now);
  }
  Result<std::optional<Workflow>> get_workflow(const std::string& id) override {
    return inner_.get_workflow(id);
  }
  Result<Workflow> resolve_workflow(const std::string& text, std::optional<int> version) override {
    return inner_.resolve_workflow(text, version);
  }
  Result<std::vector<Workflow>> list_workflows(bool all_versions) override {
    return inner_.list_workflows(all_versions);
  }
  Result<PublishedRun> publish_workflow_run(const NewWorkflowRun& run, const PublishHooks& hooks,
                                            TimeMs now) override {
    return inner_.publish_workflow_run(run, hooks, now);
  }
  Result<std::optional<WorkflowRun>> get_workflow_run(const std::string& id) override {
    return inner_.get_workflow_run(id);
  }
  Result<WorkflowRun> resolve_workflow_run(const std::string& text) override {
    return inner_.resolve_workflow_run(text);
  }
  Result<std::vector<WorkflowRun>> list_workflow_runs(const WorkflowRunFilter& filter) override {
    return inner_.list_workflow_runs(filter);
  }
  Result<std::int64_t> count_workflow_runs(const WorkflowRunFilter& filter) override {
    return inner_.count_workflow_runs(filter);
  }
  Result<std::vector<StepRun>> list_step_runs(const std::string& run_id) override {
    return inner_.list_step_runs(run_id);
  }
  Result<std::vector<StepAttempt>> list_step_attempts(const std::string& run_id) override {
    return inner_.list_step_attempts(run_id);
  }
  Result<std::optional<StepAttempt>> get_step_attempt(const std::string& dispatch_id) override {
    return inner_.get_step_attempt(dispatch_id);
  }
  Result<std::vector<WorkflowEvent>> list_workflow_events(const std::string& run_id,
                                                          std::int64_t after_sequence,
                                                          int limit) override {
    return inner_.list_workflow_events(run_id, after_sequence, limit);
  }
  Result<std::optional<EngineFence>> acquire_engine_lease(const std::string& run_id,
                                                          const std::string& driver,
                                                          DurationMs ttl_ms, TimeMs now) override {
    return inner_.acquire_engine_lease(run_id, driver, ttl_ms, now);
  }
  Status heartbeat_engine_lease(const EngineFence& fence, DurationMs ttl_ms, TimeMs now) override {
    return inner_.heartbeat_engine_lease(fence, ttl_ms, now);
  }
  Status release_engine_lease(const EngineFence& fence) override {
    return inner_.release_engine_lease(fence);
  }
  Result<std::vector<WorkflowRun>> workflow_runs_without_driver(TimeMs now, int limit) override {
    return inner_.workflow_runs_without_driver(now, limit);
  }
  Result<Reservation> reserve_step_attempt(const EngineFence& fence, const StepReserve& request,
                                           TimeMs now) override {
    return inner_.reserve_step_attempt(fence, request, now);
  }
  Status advance_workflow_run(const EngineFence& fence, const WorkflowAdvance& advance,
                              TimeMs now) override {
    return inner_.advance_workflow_run(fence, advance, now);
  }
  Result<WorkflowRun> request_workflow_cancel(const std::string& run_id, TimeMs now) override {
    return inner_.request_workflow_cancel(run_id, now);
  }
  Status record_attempt_supervisor(const Claim& claim, const ProcessIdentity& supervisor,
                                   TimeMs now) override {
    return inner_.record_attempt_supervisor(claim, supervisor, now);
  }
  Status record_attempt_process(const Claim& claim, const ProcessIdentity& target,
                                std::optional<int> pgid, const ProcessIdentity& supervisor,
                                TimeMs now) override {
    return inner_.record_attempt_process(claim, target, pgid, supervisor, now);
  }
  Status heartbeat_attempt(const Claim& claim, DurationMs lease_ms, TimeMs now) override {
    return inner_.heartbeat_attempt(claim, lease_ms, now);
  }
  Status finalize_attempt(const Claim& claim, const RunOutcome& outcome,
                          const std::string& outputs_json, TimeMs now) override {
    return inner_.finalize_attempt(claim, outcome, outputs_json, now);
  }
  Status register_runner(const RunnerRecord& runner, TimeMs now) override {
    return inner_.register_runner(runner, now);
  }
  Status heartbeat_runner(const std::string& id, TimeMs now) override {
    return inner_.heartbeat_runner(id, now);
  }
  Status remove_runner(const std::string& id) override { return inner_.remove_runner(id); }
  Result<std::vector<RunnerRecord>> list_runners() override { return inner_.list_runners(); }
  Result<std::optional<DaemonLease>> acquire_daemon_lease(const ProcessIdentity& holder,
                                                          DurationMs ttl_ms, TimeMs now) override {
    return inner_.acquire_daemon_lease(holder, ttl_ms, now);
  }
  Status heartbeat_daemon_lease(const std::string& lease_id, DurationMs ttl_ms,
                                TimeMs now) override {
    return inner_.heartbeat_daemon_lease(lease_id, ttl_ms, now);
  }
  Status release_daemon_lease(const std::string& lease_id) override {
    return inner_.release_daemon_lease(lease_id);
  }
  Result<std::optional<DaemonLease>> get_daemon_lease() override {
    return inner_.get_daemon_lease();
  }
  Status check_fence(const Fence& fence, TimeMs now) override {
    return inner_.check_fence(fence, now);
  }

 protected:
  Store& inner_;
};

}  // namespace orrery::testing
