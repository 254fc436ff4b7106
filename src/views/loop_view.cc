#include "views/loop_view.h"

#include "core/exact_json.h"
#include "store/target_codec.h"
#include "views/json_fields.h"

namespace orrery {

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
          {"next_run_at", time_or_null(loop.next_run_at)},
          {"retry_scheduled_for", time_or_null(loop.retry_scheduled_for)},
          {"catch_up", catch_up_mode_name(loop.catch_up.mode)},
          {"catch_up_limit", loop.catch_up.limit},
          {"catch_up_window_ms", value_or_null(loop.catch_up.window)},
          {"overlap", overlap_name(loop.overlap)},
          {"max_attempts", loop.max_attempts},
          {"retry_delay_ms", loop.retry_delay_ms},
          {"retry_backoff", backoff_name(loop.retry_backoff)},
          {"lease_ms", loop.lease_ms},
          {"timeout_ms", value_or_null(loop.timeout_ms)},
          {"idle_timeout_ms", value_or_null(loop.idle_timeout_ms)},
          {"log_limit_bytes", loop.log_limit_bytes},
          {"feed_route_id",
           loop.feed_route_id.empty() ? nlohmann::json() : nlohmann::json(loop.feed_route_id)},
          {"paused_by_goal",
           loop.paused_by_goal.empty() ? nlohmann::json() : nlohmann::json(loop.paused_by_goal)},
          {"expires_at", time_or_null(loop.expires_at)},
          {"missed_count", loop.missed_count},
          {"created_at", format_time(loop.created_at)},
          {"updated_at", format_time(loop.updated_at)}};
}

nlohmann::json times_json(const std::vector<TimeMs>& times) {
  nlohmann::json json = nlohmann::json::array();
  for (TimeMs time : times) json.push_back(format_time(time));
  return json;
}

}  // namespace orrery
