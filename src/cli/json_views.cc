#include "cli/json_views.h"

#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"

namespace orrery::cli {

nlohmann::json schedule_json(const SlotSeries& series) {
  const Schedule& schedule = series.schedule();
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
      json["timezone"] = series.timezone_name();
      break;
    case ScheduleType::kDynamic:
      json["min_ms"] = schedule.min_ms;
      json["max_ms"] = schedule.max_ms;
      break;
  }
  json["jitter_ms"] = schedule.jitter_ms;
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

}  // namespace orrery::cli
