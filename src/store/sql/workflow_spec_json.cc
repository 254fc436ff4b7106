#include "store/sql/workflow_spec_json.h"

#include <nlohmann/json.hpp>

#include "store/target_codec.h"

namespace orrery::sql {
namespace {

nlohmann::json step_json(const WorkflowStep& step) {
  nlohmann::json json = nlohmann::json::object();
  json["id"] = step.id;
  json["target"] = nlohmann::json::parse(encode_target(step.target));
  json["depends_on"] = step.depends_on;
  json["continue_on_failure"] = step.continue_on_failure;
  json["timeout_ms"] = step.timeout_ms ? nlohmann::json(*step.timeout_ms) : nlohmann::json();
  json["account"] = step.account;
  json["retries"] = step.retries;
  return json;
}

Result<WorkflowStep> step_from(const nlohmann::json& json) {
  WorkflowStep step;
  step.id = json.at("id").get<std::string>();
  auto target = decode_target(json.at("target").dump());
  if (!target) return target.error();
  step.target = std::move(*target);
  step.depends_on = json.at("depends_on").get<std::vector<std::string>>();
  step.continue_on_failure = json.at("continue_on_failure").get<bool>();
  if (!json.at("timeout_ms").is_null()) step.timeout_ms = json.at("timeout_ms").get<DurationMs>();
  step.account = json.at("account").get<std::string>();
  step.retries = json.at("retries").get<int>();
  return step;
}

}  // namespace

std::string encode_stored_spec(const WorkflowSpec& spec) {
  nlohmann::json steps = nlohmann::json::array();
  for (const WorkflowStep& step : spec.steps) steps.push_back(step_json(step));
  nlohmann::json json = nlohmann::json::object();
  json["name"] = spec.name;
  json["description"] = spec.description;
  json["goal"] = spec.goal;
  json["steps"] = std::move(steps);
  return json.dump();
}

Result<WorkflowSpec> decode_stored_spec(const std::string& text) {
  try {
    const nlohmann::json json = nlohmann::json::parse(text);
    WorkflowSpec spec;
    spec.name = json.at("name").get<std::string>();
    spec.description = json.at("description").get<std::string>();
    spec.goal = json.at("goal").get<std::string>();
    for (const nlohmann::json& entry : json.at("steps")) {
      auto step = step_from(entry);
      if (!step) return step.error();
      spec.steps.push_back(std::move(*step));
    }
    return spec;
  } catch (const nlohmann::json::exception&) {
    return internal_error("the stored workflow spec is not valid JSON of a spec");
  }
}

}  // namespace orrery::sql
