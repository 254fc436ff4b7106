#include "cli/json_views.h"

#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
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

nlohmann::json times_json(const std::vector<TimeMs>& times) {
  nlohmann::json json = nlohmann::json::array();
  for (TimeMs time : times) json.push_back(format_time(time));
  return json;
}

nlohmann::json error_json(const Error& error) {
  return {{"error", {{"code", error_code_name(error.code)}, {"message", error.message}}}};
}

std::string json_text(const nlohmann::json& document) {
  return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace orrery::cli
