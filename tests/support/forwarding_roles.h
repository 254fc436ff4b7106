// Role forwarders: a store role (store/claim_ledger.h, store/workflow_runs.h)
// that forwards every call to another, for tests that override a few calls
// to inject faults (e.g. a heartbeat that fails transiently).
#pragma once

#include "store/claim_ledger.h"
#include "store/workflow_runs.h"

namespace orrery::testing {

class ForwardingLedger : public ClaimLedger {
 public:
  explicit ForwardingLedger(ClaimLedger& inner) : inner_(inner) {}

  Status record_supervisor(const Claim& claim, const ProcessIdentity& supervisor,
                           TimeMs now) override {
    return inner_.record_supervisor(claim, supervisor, now);
  }
  Status record_process(const Claim& claim, const ProcessIdentity& target, std::optional<int> pgid,
                        const ProcessIdentity& supervisor, TimeMs now) override {
    return inner_.record_process(claim, target, pgid, supervisor, now);
  }
  Status heartbeat_claim(const Claim& claim, DurationMs lease_ms, TimeMs now) override {
    return inner_.heartbeat_claim(claim, lease_ms, now);
  }
  Status finish_claim(const Claim& claim, const RunOutcome& outcome, TimeMs now) override {
    return inner_.finish_claim(claim, outcome, now);
  }
  Status finish_expired_claim(const Claim& claim, const RunOutcome& outcome, TimeMs finished_at,
                              TimeMs now) override {
    return inner_.finish_expired_claim(claim, outcome, finished_at, now);
  }

 protected:
  ClaimLedger& inner_;
};

class ForwardingWorkflowRuns : public WorkflowRuns {
 public:
  explicit ForwardingWorkflowRuns(WorkflowRuns& inner) : inner_(inner) {}

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
  Result<WorkflowRun> request_workflow_cancel(const std::string& run_id, TimeMs now) override {
    return inner_.request_workflow_cancel(run_id, now);
  }

 protected:
  WorkflowRuns& inner_;
};

}  // namespace orrery::testing
