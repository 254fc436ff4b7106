#include "views/workflow_view.h"

#include "core/exact_json.h"
#include "views/json_fields.h"

namespace orrery {

nlohmann::json workflow_json(const Workflow& workflow, const std::string& steps_json) {
  return {{"id", workflow.id},
          {"name", workflow.name},
          {"description", workflow.spec.description},
          {"version", workflow.version},
          {"status", workflow_status_name(workflow.status)},
          {"goal", workflow.spec.goal.empty() ? nlohmann::json(nullptr)
                                              : nlohmann::json(workflow.spec.goal)},
          {"steps", read_json(steps_json)},
          {"created_at", format_time(workflow.created_at)},
          {"updated_at", format_time(workflow.updated_at)}};
}

namespace {

nlohmann::json accounting_json(const Accounting& totals) {
  return {{"attempts", totals.attempts},
          {"tokens", {{"input", totals.input_tokens}, {"output", totals.output_tokens}}},
          {"cost_usd", totals.cost_usd}};
}

nlohmann::json step_run_json(const StepRun& step) {
  return {{"step_id", step.step_id},
          {"sequence", step.sequence},
          {"status", step_status_name(step.status)},
          {"attempts", step.attempts},
          {"max_attempts", step.max_attempts},
          {"started_at", time_or_null(step.started_at)},
          {"finished_at", time_or_null(step.finished_at)},
          {"duration_ms", step.started_at && step.finished_at
                              ? nlohmann::json(*step.finished_at - *step.started_at)
                              : nlohmann::json(nullptr)},
          {"exit_code", value_or_null(step.exit_code)},
          {"error", text_or_null(step.error)},
          {"outputs", read_json(step.outputs_json)}};
}

}  // namespace

nlohmann::json workflow_run_json(const WorkflowRun& run, const std::vector<StepRun>& steps,
                                 const std::vector<PhaseAccounting>& phases) {
  nlohmann::json step_list = nlohmann::json::array();
  for (const StepRun& step : steps) step_list.push_back(step_run_json(step));
  nlohmann::json by_phase = nlohmann::json::object();
  for (const PhaseAccounting& phase : phases) by_phase[phase.phase] = accounting_json(phase.totals);
  nlohmann::json accounting = accounting_json(total_of(phases));
  accounting["by_phase"] = by_phase;
  return {{"id", run.id},
          {"workflow_id", run.workflow_id},
          {"workflow_name", run.workflow_name},
          {"workflow_version", run.workflow_version},
          {"loop_id", text_or_null(run.loop_id)},
          {"loop_run_id", text_or_null(run.loop_run_id)},
          {"item_id", text_or_null(run.item_id)},
          {"goal_id", text_or_null(run.goal_id)},
          {"status", workflow_run_status_name(run.status)},
          {"idempotency_key", text_or_null(run.idempotency_key)},
          {"input", read_json(run.input_json)},
          {"cancel_requested", run.cancel_requested},
          {"driver", text_or_null(run.driver)},
          {"created_at", format_time(run.created_at)},
          {"started_at", time_or_null(run.started_at)},
          {"finished_at", time_or_null(run.finished_at)},
          {"duration_ms", run.started_at && run.finished_at
                              ? nlohmann::json(*run.finished_at - *run.started_at)
                              : nlohmann::json(nullptr)},
          {"error", text_or_null(run.error)},
          {"steps", step_list},
          {"accounting", accounting}};
}

nlohmann::json workflow_event_json(const WorkflowEvent& event) {
  return {{"sequence", event.sequence},
          {"event_type", event.event_type},
          {"step_id", text_or_null(event.step_id)},
          {"payload", read_json(event.payload_json)},
          {"created_at", format_time(event.created_at)}};
}

}  // namespace orrery
