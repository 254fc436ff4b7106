#include "store/sql/workflow_rows.h"

#include "core/workflow_spec.h"
#include "store/sql/column_table.h"

namespace orrery::sql {
namespace {

using S = Statement;

Result<WorkflowStatus> parse_stored_workflow_status(const std::string& text) {
  if (text == workflow_status_name(WorkflowStatus::kActive)) return WorkflowStatus::kActive;
  if (text == workflow_status_name(WorkflowStatus::kArchived)) return WorkflowStatus::kArchived;
  return internal_error("a stored workflow has the unknown status '" + text + "'");
}

// An error of a record's column, naming the record (its key is read first).
Status naming(const std::string& what, Status status, ErrorCode code = ErrorCode::kInternal) {
  if (status) return status;
  return Error{code, what + ": " + status.error().message};
}

template <typename T>
Status parsed_into(Result<T> parsed, T& field) {
  if (!parsed) return parsed.error();
  field = std::move(*parsed);
  return Ok{};
}

// A process identity is read from two columns: its pid, then its start time.
Status read_pid(const S& r, int c, std::optional<ProcessIdentity>& process) {
  if (!r.is_null(c)) process = ProcessIdentity{int(r.int64(c)), std::nullopt};
  return Ok{};
}
Status read_started(const S& r, int c, std::optional<ProcessIdentity>& process) {
  if (process) process->started_at = r.optional_int64(c);
  return Ok{};
}

const ColumnTable<Workflow> kWorkflowColumns = {
    {"id", read_field<&Workflow::id>},
    {"name", read_field<&Workflow::name>},
    {"version", read_field<&Workflow::version>},
    {"status",
     [](const S& r, int c, Workflow& w) {
       return parsed_into(parse_stored_workflow_status(r.text(c)), w.status);
     }},
    {"spec",
     [](const S& r, int c, Workflow& w) {
       auto spec = decode_workflow_spec(r.text(c));
       if (!spec) return naming("workflow " + w.id, spec.error(), spec.error().code);
       return parsed_into(std::move(spec), w.spec);
     }},
    {"created_at", read_field<&Workflow::created_at>},
    {"updated_at", read_field<&Workflow::updated_at>},
};

const ColumnTable<WorkflowRun> kWorkflowRunColumns = {
    {"id", read_field<&WorkflowRun::id>},
    {"workflow_id", read_field<&WorkflowRun::workflow_id>},
    {"workflow_name", read_field<&WorkflowRun::workflow_name>},
    {"workflow_version", read_field<&WorkflowRun::workflow_version>},
    {"status",
     [](const S& r, int c, WorkflowRun& run) {
       return naming("workflow run " + run.id,
                     parsed_into(parse_workflow_run_status(r.text(c)), run.status));
     }},
    {"input_json", read_field<&WorkflowRun::input_json>},
    {"idempotency_key", read_field<&WorkflowRun::idempotency_key>},
    {"loop_id", read_field<&WorkflowRun::loop_id>},
    {"loop_run_id", read_field<&WorkflowRun::loop_run_id>},
    {"item_id", read_field<&WorkflowRun::item_id>},
    {"goal_id", read_field<&WorkflowRun::goal_id>},
    {"cwd", read_field<&WorkflowRun::cwd>},
    {"max_parallel", read_field<&WorkflowRun::max_parallel>},
    {"driver", read_field<&WorkflowRun::driver>},
    {"driver_token", read_field<&WorkflowRun::driver_token>},
    {"driver_lease_expires_at", read_field<&WorkflowRun::driver_lease_expires_at>},
    {"cancel_requested", read_field<&WorkflowRun::cancel_requested>},
    {"error", read_field<&WorkflowRun::error>},
    {"created_at", read_field<&WorkflowRun::created_at>},
    {"started_at", read_field<&WorkflowRun::started_at>},
    {"finished_at", read_field<&WorkflowRun::finished_at>},
    {"updated_at", read_field<&WorkflowRun::updated_at>},
};

const ColumnTable<StepRun> kStepRunColumns = {
    {"run_id", read_field<&StepRun::run_id>},
    {"step_id", read_field<&StepRun::step_id>},
    {"sequence", read_field<&StepRun::sequence>},
    {"status",
     [](const S& r, int c, StepRun& step) {
       return naming("step " + step.step_id + " of workflow run " + step.run_id,
                     parsed_into(parse_step_status(r.text(c)), step.status));
     }},
    {"attempts", read_field<&StepRun::attempts>},
    {"max_attempts", read_field<&StepRun::max_attempts>},
    {"dispatch_id", read_field<&StepRun::dispatch_id>},
    {"started_at", read_field<&StepRun::started_at>},
    {"finished_at", read_field<&StepRun::finished_at>},
    {"exit_code", read_field<&StepRun::exit_code>},
    {"error", read_field<&StepRun::error>},
    {"outputs_json", read_field<&StepRun::outputs_json>},
    {"updated_at", read_field<&StepRun::updated_at>},
};

const ColumnTable<StepAttempt> kStepAttemptColumns = {
    {"dispatch_id", read_field<&StepAttempt::dispatch_id>},
    {"run_id", read_field<&StepAttempt::run_id>},
    {"step_id", read_field<&StepAttempt::step_id>},
    {"attempt", read_field<&StepAttempt::attempt>},
    {"phase", read_field<&StepAttempt::phase>},
    {"status",
     [](const S& r, int c, StepAttempt& a) {
       return naming("step attempt " + a.dispatch_id,
                     parsed_into(parse_run_status(r.text(c)), a.status));
     }},
    {"claimed_by", read_field<&StepAttempt::claimed_by>},
    {"claim_token", read_field<&StepAttempt::claim_token>},
    {"host", read_field<&StepAttempt::host>},
    {"lease_expires_at", read_field<&StepAttempt::lease_expires_at>},
    {"supervisor_pid",
     [](const S& r, int c, StepAttempt& a) { return read_pid(r, c, a.supervisor); }},
    {"supervisor_started_at",
     [](const S& r, int c, StepAttempt& a) { return read_started(r, c, a.supervisor); }},
    {"pid", [](const S& r, int c, StepAttempt& a) { return read_pid(r, c, a.target); }},
    {"process_started_at",
     [](const S& r, int c, StepAttempt& a) { return read_started(r, c, a.target); }},
    {"pgid", read_field<&StepAttempt::pgid>},
    {"started_at", read_field<&StepAttempt::started_at>},
    {"finished_at", read_field<&StepAttempt::finished_at>},
    {"exit_code", read_field<&StepAttempt::exit_code>},
    {"signal", read_field<&StepAttempt::signal>},
    {"error", read_field<&StepAttempt::error>},
    {"stdout", read_field<&StepAttempt::stdout_tail>},
    {"stderr", read_field<&StepAttempt::stderr_tail>},
    {"outputs_json", read_field<&StepAttempt::outputs_json>},
    {"input_tokens",
     [](const S& r, int c, StepAttempt& a) -> Status {
       a.usage.input_tokens = r.optional_int64(c);
       return Ok{};
     }},
    {"output_tokens",
     [](const S& r, int c, StepAttempt& a) -> Status {
       a.usage.output_tokens = r.optional_int64(c);
       return Ok{};
     }},
    {"cost_usd",
     [](const S& r, int c, StepAttempt& a) -> Status {
       if (!r.is_null(c)) a.usage.cost_usd = r.real(c);
       return Ok{};
     }},
    {"usage_limited", read_field<&StepAttempt::usage_limited>},
    {"updated_at", read_field<&StepAttempt::updated_at>},
};

const ColumnTable<WorkflowEvent> kWorkflowEventColumns = {
    {"run_id", read_field<&WorkflowEvent::run_id>},
    {"sequence", read_field<&WorkflowEvent::sequence>},
    {"event_type", read_field<&WorkflowEvent::event_type>},
    {"step_id", read_field<&WorkflowEvent::step_id>},
    {"payload_json", read_field<&WorkflowEvent::payload_json>},
    {"created_at", read_field<&WorkflowEvent::created_at>},
};

}  // namespace

std::string workflow_select_list() { return select_list(kWorkflowColumns); }
std::string workflow_run_select_list() { return select_list(kWorkflowRunColumns); }
std::string step_run_select_list() { return select_list(kStepRunColumns); }
std::string step_attempt_select_list(std::string_view qualifier) {
  return select_list(kStepAttemptColumns, qualifier);
}
std::string workflow_event_select_list() { return select_list(kWorkflowEventColumns); }

Result<Workflow> read_workflow(const Statement& row) { return read_columns(kWorkflowColumns, row); }
Result<WorkflowRun> read_workflow_run(const Statement& row) {
  return read_columns(kWorkflowRunColumns, row);
}
Result<StepRun> read_step_run(const Statement& row) { return read_columns(kStepRunColumns, row); }
Result<StepAttempt> read_step_attempt(const Statement& row) {
  return read_columns(kStepAttemptColumns, row);
}
Result<WorkflowEvent> read_workflow_event(const Statement& row) {
  return read_columns(kWorkflowEventColumns, row);
}

}  // namespace orrery::sql
