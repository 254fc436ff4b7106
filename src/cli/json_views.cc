#include "cli/json_views.h"

#include <nlohmann/json.hpp>

#include "core/exact_json.h"
#include "core/exit_codes.h"
#include "store/target_codec.h"

namespace orrery::cli {

nlohmann::json schedule_json(const Schedule& schedule) {
  nlohmann::json json{{"type", schedule_type_name(schedule.type)}};
  switch (schedule.type) {
    case ScheduleType::kOnce:
      json["at"] = format_time(schedule.at);
      break;
    case ScheduleType::kInterval:
      json["every_ms"] = schedule.every_ms;
      json["anchor"] = anchor_name(schedule.anchor);
      break;
    case ScheduleType::kCron:
      json["expression"] = schedule.expression;
      json["timezone"] = schedule.timezone;
      break;
    case ScheduleType::kDynamic:
      json["min_ms"] = schedule.min_ms;
      json["max_ms"] = schedule.max_ms;
      break;
  }
  json["jitter_ms"] = schedule.jitter_ms;
  return json;
}

namespace {

nlohmann::json optional_time(const std::optional<TimeMs>& time) {
  return time ? nlohmann::json(format_time(*time)) : nlohmann::json(nullptr);
}

template <typename T>
nlohmann::json optional_value(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json pairs_object(const std::vector<EnvVar>& pairs) {
  nlohmann::json json = nlohmann::json::object();
  for (const auto& [key, value] : pairs) json[key] = value;
  return json;
}

nlohmann::json target_json(const Target& target) {
  nlohmann::json json{{"type", target_type_name(target.type)}};
  if (target.agent) {
    json.update(agent_target_json(*target.agent));
  } else if (target.shell) {
    json["shell"] = true;
    json["command"] = target.command_line;
  } else {
    json["shell"] = false;
    json["command"] = target.argv.empty() ? "" : target.argv.front();
    json["args"] = std::vector<std::string>(target.argv.begin() + (target.argv.empty() ? 0 : 1),
                                            target.argv.end());
  }
  if (target.type == TargetType::kWorkflow) {
    json.erase("shell");
    json.erase("command");
    json.erase("args");
    json["workflow_id"] = target.workflow_id;
    json["input"] = read_json(target.input_json);
  }
  json["cwd"] = target.cwd.empty() ? nlohmann::json(nullptr) : nlohmann::json(target.cwd);
  json["env"] = pairs_object(target.env);
  json["secret_env"] = target.secret_env;  // names only: values never leave their file
  return json;
}

}  // namespace

nlohmann::json loop_json(const Loop& loop) {
  return {{"id", loop.id},
          {"name", loop.name},
          {"description", loop.description},
          {"status", loop_status_name(loop.status)},
          {"archived", loop.archived},
          {"schedule", schedule_json(loop.schedule)},
          {"target", target_json(loop.target)},
          {"machine", pairs_object(loop.machine)},
          {"next_run_at", optional_time(loop.next_run_at)},
          {"retry_scheduled_for", optional_time(loop.retry_scheduled_for)},
          {"catch_up", catch_up_mode_name(loop.catch_up.mode)},
          {"catch_up_limit", loop.catch_up.limit},
          {"catch_up_window_ms", optional_value(loop.catch_up.window)},
          {"overlap", overlap_name(loop.overlap)},
          {"max_attempts", loop.max_attempts},
          {"retry_delay_ms", loop.retry_delay_ms},
          {"retry_backoff", backoff_name(loop.retry_backoff)},
          {"lease_ms", loop.lease_ms},
          {"timeout_ms", optional_value(loop.timeout_ms)},
          {"idle_timeout_ms", optional_value(loop.idle_timeout_ms)},
          {"log_limit_bytes", loop.log_limit_bytes},
          {"feed_route_id",
           loop.feed_route_id.empty() ? nlohmann::json() : nlohmann::json(loop.feed_route_id)},
          {"paused_by_goal",
           loop.paused_by_goal.empty() ? nlohmann::json() : nlohmann::json(loop.paused_by_goal)},
          {"expires_at", optional_time(loop.expires_at)},
          {"missed_count", loop.missed_count},
          {"created_at", format_time(loop.created_at)},
          {"updated_at", format_time(loop.updated_at)}};
}

nlohmann::json run_json(const Run& run, bool with_output) {
  nlohmann::json usage{{"input_tokens", optional_value(run.usage.input_tokens)},
                       {"output_tokens", optional_value(run.usage.output_tokens)},
                       {"cost_usd", optional_value(run.usage.cost_usd)}};
  nlohmann::json json{
      {"id", run.id},
      {"loop_id", run.loop_id},
      {"loop_name", run.loop_name},
      {"scheduled_for", format_time(run.scheduled_for)},
      {"attempt", run.attempt},
      {"status", run_status_name(run.status)},
      {"started_at", optional_time(run.started_at)},
      {"finished_at", optional_time(run.finished_at)},
      {"exit_code", optional_value(run.exit_code)},
      {"signal", optional_value(run.signal)},
      {"duration_ms", optional_value(run.duration_ms)},
      {"error", run.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.error)},
      {"skip_reason",
       run.skip_reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.skip_reason)},
      {"pid", run.target ? nlohmann::json(run.target->pid) : nlohmann::json(nullptr)},
      {"supervisor_pid",
       run.supervisor ? nlohmann::json(run.supervisor->pid) : nlohmann::json(nullptr)},
      {"host", run.host.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.host)},
      {"claimed_by",
       run.claimed_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.claimed_by)},
      {"usage", usage},
      {"usage_limited", run.usage_limited},
      {"created_at", format_time(run.created_at)},
      {"updated_at", format_time(run.updated_at)}};
  if (with_output) {
    json["stdout"] = run.stdout_tail;
    json["stderr"] = run.stderr_tail;
  }
  return json;
}

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

nlohmann::json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

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
          {"started_at", optional_time(step.started_at)},
          {"finished_at", optional_time(step.finished_at)},
          {"duration_ms", step.started_at && step.finished_at
                              ? nlohmann::json(*step.finished_at - *step.started_at)
                              : nlohmann::json(nullptr)},
          {"exit_code", optional_value(step.exit_code)},
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
          {"started_at", optional_time(run.started_at)},
          {"finished_at", optional_time(run.finished_at)},
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

nlohmann::json times_json(const std::vector<TimeMs>& times) {
  nlohmann::json json = nlohmann::json::array();
  for (TimeMs time : times) json.push_back(format_time(time));
  return json;
}

nlohmann::json error_json(const Error& error) {
  return {{"error", {{"code", error_code_name(error.code)}, {"message", error.message}}}};
}

std::string json_text(const nlohmann::json& document) { return write_json(document, 2); }

}  // namespace orrery::cli
