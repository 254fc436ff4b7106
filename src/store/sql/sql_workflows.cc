// Placeholder bodies of the workflow methods, replaced as they are built.
#include "store/sql/sql_store.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace orrery {

Result<Workflow> SqlStore::create_workflow(const WorkflowSpec& spec, const std::string& id,
                                           TimeMs now) {
  return internal_error("not yet built: create_workflow");
}

Result<std::optional<Workflow>> SqlStore::get_workflow(const std::string& id) {
  return internal_error("not yet built: get_workflow");
}

Result<Workflow> SqlStore::resolve_workflow(const std::string& text, std::optional<int> version) {
  return internal_error("not yet built: resolve_workflow");
}

Result<std::vector<Workflow>> SqlStore::list_workflows(bool all_versions) {
  return internal_error("not yet built: list_workflows");
}

Result<PublishedRun> SqlStore::publish_workflow_run(const NewWorkflowRun& run,
                                                    const PublishHooks& hooks, TimeMs now) {
  return internal_error("not yet built: publish_workflow_run");
}

Result<std::optional<WorkflowRun>> SqlStore::get_workflow_run(const std::string& id) {
  return internal_error("not yet built: get_workflow_run");
}

Result<WorkflowRun> SqlStore::resolve_workflow_run(const std::string& text) {
  return internal_error("not yet built: resolve_workflow_run");
}

Result<std::vector<WorkflowRun>> SqlStore::list_workflow_runs(const WorkflowRunFilter& filter) {
  return internal_error("not yet built: list_workflow_runs");
}

Result<std::int64_t> SqlStore::count_workflow_runs(const WorkflowRunFilter& filter) {
  return internal_error("not yet built: count_workflow_runs");
}

Result<std::vector<StepRun>> SqlStore::list_step_runs(const std::string& run_id) {
  return internal_error("not yet built: list_step_runs");
}

Result<std::vector<StepAttempt>> SqlStore::list_step_attempts(const std::string& run_id) {
  return internal_error("not yet built: list_step_attempts");
}

Result<std::optional<StepAttempt>> SqlStore::get_step_attempt(const std::string& dispatch_id) {
  return internal_error("not yet built: get_step_attempt");
}

Result<std::vector<WorkflowEvent>> SqlStore::list_workflow_events(const std::string& run_id,
                                                                  std::int64_t after_sequence,
                                                                  int limit) {
  return internal_error("not yet built: list_workflow_events");
}

Result<std::optional<EngineFence>> SqlStore::acquire_engine_lease(const std::string& run_id,
                                                                  const std::string& driver,
                                                                  DurationMs ttl_ms, TimeMs now) {
  return internal_error("not yet built: acquire_engine_lease");
}

Status SqlStore::heartbeat_engine_lease(const EngineFence& fence, DurationMs ttl_ms, TimeMs now) {
  return internal_error("not yet built: heartbeat_engine_lease");
}

Status SqlStore::release_engine_lease(const EngineFence& fence) {
  return internal_error("not yet built: release_engine_lease");
}

Result<std::vector<WorkflowRun>> SqlStore::workflow_runs_without_driver(TimeMs now, int limit) {
  return internal_error("not yet built: workflow_runs_without_driver");
}

Result<Reservation> SqlStore::reserve_step_attempt(const EngineFence& fence,
                                                   const StepReserve& request, TimeMs now) {
  return internal_error("not yet built: reserve_step_attempt");
}

Status SqlStore::advance_workflow_run(const EngineFence& fence, const WorkflowAdvance& advance,
                                      TimeMs now) {
  return internal_error("not yet built: advance_workflow_run");
}

Result<WorkflowRun> SqlStore::request_workflow_cancel(const std::string& run_id, TimeMs now) {
  return internal_error("not yet built: request_workflow_cancel");
}

Status SqlStore::record_attempt_supervisor(const Claim& claim, const ProcessIdentity& supervisor,
                                           TimeMs now) {
  return internal_error("not yet built: record_attempt_supervisor");
}

Status SqlStore::record_attempt_process(const Claim& claim, const ProcessIdentity& target,
                                        std::optional<int> pgid, const ProcessIdentity& supervisor,
                                        TimeMs now) {
  return internal_error("not yet built: record_attempt_process");
}

Status SqlStore::heartbeat_attempt(const Claim& claim, DurationMs lease_ms, TimeMs now) {
  return internal_error("not yet built: heartbeat_attempt");
}

Status SqlStore::finalize_attempt(const Claim& claim, const RunOutcome& outcome,
                                  const std::string& outputs_json, TimeMs now) {
  return internal_error("not yet built: finalize_attempt");
}

}  // namespace orrery
