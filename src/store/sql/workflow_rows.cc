#include "store/sql/workflow_rows.h"

#include "core/workflow_spec.h"

namespace orrery::sql {
namespace {

std::optional<int> optional_int(const Statement& row, int column) {
  if (row.is_null(column)) return std::nullopt;
  return int(row.int64(column));
}

std::optional<ProcessIdentity> optional_process(const Statement& row, int pid, int started) {
  if (row.is_null(pid)) return std::nullopt;
  return ProcessIdentity{int(row.int64(pid)), row.optional_int64(started)};
}

Result<WorkflowStatus> parse_stored_workflow_status(const std::string& text) {
  if (text == workflow_status_name(WorkflowStatus::kActive)) return WorkflowStatus::kActive;
  if (text == workflow_status_name(WorkflowStatus::kArchived)) return WorkflowStatus::kArchived;
  return internal_error("a stored workflow has the unknown status '" + text + "'");
}

}  // namespace

const char* const kWorkflowColumns = "id, name, version, status, spec, created_at, updated_at";

Result<Workflow> read_workflow(const Statement& row) {
  Workflow workflow;
  workflow.id = row.text(0);
  workflow.name = row.text(1);
  workflow.version = int(row.int64(2));
  auto status = parse_stored_workflow_status(row.text(3));
  if (!status) return status.error();
  workflow.status = *status;
  auto spec = decode_workflow_spec(row.text(4));
  if (!spec)
    return Error{spec.error().code, "workflow " + workflow.id + ": " + spec.error().message};
  workflow.spec = std::move(*spec);
  workflow.created_at = row.int64(5);
  workflow.updated_at = row.int64(6);
  return workflow;
}

const char* const kWorkflowRunColumns =
    "id, workflow_id, workflow_name, workflow_version, status, input_json, idempotency_key, "
    "loop_id, loop_run_id, cwd, max_parallel, driver, driver_token, driver_lease_expires_at, "
    "cancel_requested, error, created_at, started_at, finished_at, updated_at";

Result<WorkflowRun> read_workflow_run(const Statement& row) {
  WorkflowRun run;
  run.id = row.text(0);
  run.workflow_id = row.text(1);
  run.workflow_name = row.text(2);
  run.workflow_version = int(row.int64(3));
  auto status = parse_workflow_run_status(row.text(4));
  if (!status)
    return Error{ErrorCode::kInternal, "workflow run " + run.id + ": " + status.error().message};
  run.status = *status;
  run.input_json = row.text(5);
  run.idempotency_key = row.text(6);
  run.loop_id = row.text(7);
  run.loop_run_id = row.text(8);
  run.cwd = row.text(9);
  run.max_parallel = int(row.int64(10));
  run.driver = row.text(11);
  run.driver_token = row.text(12);
  run.driver_lease_expires_at = row.optional_int64(13);
  run.cancel_requested = row.int64(14) != 0;
  run.error = row.text(15);
  run.created_at = row.int64(16);
  run.started_at = row.optional_int64(17);
  run.finished_at = row.optional_int64(18);
  run.updated_at = row.int64(19);
  return run;
}

const char* const kStepRunColumns =
    "run_id, step_id, sequence, status, attempts, max_attempts, dispatch_id, started_at, "
    "finished_at, exit_code, error, outputs_json, updated_at";

Result<StepRun> read_step_run(const Statement& row) {
  StepRun step;
  step.run_id = row.text(0);
  step.step_id = row.text(1);
  step.sequence = int(row.int64(2));
  auto status = parse_step_status(row.text(3));
  if (!status)
    return Error{ErrorCode::kInternal, "step " + step.step_id + " of workflow run " + step.run_id +
                                           ": " + status.error().message};
  step.status = *status;
  step.attempts = int(row.int64(4));
  step.max_attempts = int(row.int64(5));
  step.dispatch_id = row.text(6);
  step.started_at = row.optional_int64(7);
  step.finished_at = row.optional_int64(8);
  step.exit_code = optional_int(row, 9);
  step.error = row.text(10);
  step.outputs_json = row.text(11);
  step.updated_at = row.int64(12);
  return step;
}

const char* const kStepAttemptColumns =
    "dispatch_id, run_id, step_id, attempt, phase, status, claimed_by, claim_token, host, "
    "lease_expires_at, supervisor_pid, supervisor_started_at, pid, process_started_at, pgid, "
    "started_at, finished_at, exit_code, signal, error, stdout, stderr, outputs_json, "
    "input_tokens, output_tokens, cost_usd, usage_limited, updated_at";

Result<StepAttempt> read_step_attempt(const Statement& row) {
  StepAttempt attempt;
  attempt.dispatch_id = row.text(0);
  attempt.run_id = row.text(1);
  attempt.step_id = row.text(2);
  attempt.attempt = int(row.int64(3));
  attempt.phase = row.text(4);
  auto status = parse_run_status(row.text(5));
  if (!status)
    return Error{ErrorCode::kInternal,
                 "step attempt " + attempt.dispatch_id + ": " + status.error().message};
  attempt.status = *status;
  attempt.claimed_by = row.text(6);
  attempt.claim_token = row.text(7);
  attempt.host = row.text(8);
  attempt.lease_expires_at = row.optional_int64(9);
  attempt.supervisor = optional_process(row, 10, 11);
  attempt.target = optional_process(row, 12, 13);
  attempt.pgid = optional_int(row, 14);
  attempt.started_at = row.int64(15);
  attempt.finished_at = row.optional_int64(16);
  attempt.exit_code = optional_int(row, 17);
  attempt.signal = optional_int(row, 18);
  attempt.error = row.text(19);
  attempt.stdout_tail = row.text(20);
  attempt.stderr_tail = row.text(21);
  attempt.outputs_json = row.text(22);
  attempt.usage.input_tokens = row.optional_int64(23);
  attempt.usage.output_tokens = row.optional_int64(24);
  if (!row.is_null(25)) attempt.usage.cost_usd = row.real(25);
  attempt.usage_limited = row.int64(26) != 0;
  attempt.updated_at = row.int64(27);
  return attempt;
}

const char* const kWorkflowEventColumns =
    "run_id, sequence, event_type, step_id, payload_json, created_at";

Result<WorkflowEvent> read_workflow_event(const Statement& row) {
  WorkflowEvent event;
  event.run_id = row.text(0);
  event.sequence = row.int64(1);
  event.event_type = row.text(2);
  event.step_id = row.text(3);
  event.payload_json = row.text(4);
  event.created_at = row.int64(5);
  return event;
}

}  // namespace orrery::sql
