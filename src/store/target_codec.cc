#include "store/target_codec.h"

#include <nlohmann/json.hpp>

#include "core/exact_json.h"

namespace orrery {
namespace {

// What is wrong with a stored JSON text, in our words (the library's
// exception ids: 1xx parse, 3xx type, 4xx out of range).
std::string json_reason(const nlohmann::json::exception& error) {
  if (error.id < 200) return "it is not valid JSON";
  if (error.id >= 300 && error.id < 400) return "a field has the wrong type";
  if (error.id >= 400 && error.id < 500) return "a field is missing";
  return "its contents are not as expected";
}

nlohmann::json pairs_json(const std::vector<EnvVar>& pairs) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& [key, value] : pairs) json.push_back({key, value});
  return json;
}

std::vector<EnvVar> pairs_from(const nlohmann::json& json) {
  std::vector<EnvVar> pairs;
  for (const auto& pair : json)
    pairs.emplace_back(pair.at(0).get<std::string>(), pair.at(1).get<std::string>());
  return pairs;
}

// A text field: null when empty.
nlohmann::json text_or_null(const std::string& value) {
  return value.empty() ? nlohmann::json(nullptr) : nlohmann::json(value);
}

std::string text_from(const nlohmann::json& json, const char* key) {
  const auto found = json.find(key);
  if (found == json.end() || found->is_null()) return "";
  return found->get<std::string>();
}

// A stored value that names something this version does not know: a row
// written by a newer orrery. Refused, so it never runs a different program.
Error unknown_value(const std::string& what, const std::string& value) {
  return usage_error("the stored target has an unknown " + what + " '" + value +
                     "': it was written by a newer version of orrery; upgrade to run it");
}

Result<AgentTarget> agent_from(const nlohmann::json& json) {
  AgentTarget agent;
  const std::string name = json.at("provider").get<std::string>();
  auto provider = parse_provider(name);
  if (!provider) return unknown_value("agent provider", name);
  agent.provider = *provider;
  agent.prompt = text_from(json, "prompt");
  agent.prompt_file = text_from(json, "prompt_file");
  agent.model = text_from(json, "model");
  // Rows written before the shape was shared call the effort "variant".
  agent.variant = json.contains("effort") ? text_from(json, "effort") : text_from(json, "variant");
  agent.agent = text_from(json, "agent");
  agent.permission_mode = text_from(json, "permission_mode");
  agent.sandbox = text_from(json, "sandbox");
  agent.config_isolation = text_from(json, "config_isolation");
  agent.add_dirs = json.at("add_dirs").get<std::vector<std::string>>();
  agent.extra_args = json.at("extra_args").get<std::vector<std::string>>();
  agent.cwd = text_from(json, "cwd");
  agent.auth_profile = text_from(json, "auth_profile");
  return agent;
}

Result<TargetType> type_from(const std::string& type) {
  for (TargetType known : {TargetType::kCommand, TargetType::kAgent, TargetType::kWorkflow}) {
    if (type == target_type_name(known)) return known;
  }
  return unknown_value("target type", type);
}

}  // namespace

nlohmann::json agent_target_json(const AgentTarget& agent) {
  return {{"provider", provider_name(agent.provider)},
          {"prompt", text_or_null(agent.prompt)},
          {"prompt_file", text_or_null(agent.prompt_file)},
          {"model", text_or_null(agent.model)},
          {"effort", text_or_null(agent.variant)},
          {"agent", text_or_null(agent.agent)},
          {"permission_mode", text_or_null(agent.permission_mode)},
          {"sandbox", text_or_null(agent.sandbox)},
          {"config_isolation", text_or_null(agent.config_isolation)},
          {"add_dirs", agent.add_dirs},
          {"extra_args", agent.extra_args},
          {"cwd", text_or_null(agent.cwd)},
          {"auth_profile", text_or_null(agent.auth_profile)}};
}

std::string encode_target(const Target& target) {
  nlohmann::json json{{"type", target_type_name(target.type)},
                      {"argv", target.argv},
                      {"shell", target.shell},
                      {"command_line", target.command_line},
                      {"cwd", target.cwd},
                      {"env", pairs_json(target.env)},
                      {"secret_env", target.secret_env}};
  if (target.agent) json["agent"] = agent_target_json(*target.agent);
  if (target.type == TargetType::kWorkflow) {
    json["workflow_id"] = target.workflow_id;
    json["input"] = target.input_json;
  }
  return write_json(json);
}

Result<Target> decode_target(const std::string& text) {
  // Stored JSON is ours; a parse failure means a damaged row.
  try {
    const nlohmann::json json = read_json(text);
    if (json.is_discarded()) {
      return internal_error("the stored target is not valid (it is not valid JSON)");
    }
    Target target;
    auto type = type_from(json.at("type").get<std::string>());
    if (!type) return type.error();
    target.type = *type;
    target.argv = json.at("argv").get<std::vector<std::string>>();
    target.shell = json.at("shell").get<bool>();
    target.command_line = json.at("command_line").get<std::string>();
    target.cwd = json.at("cwd").get<std::string>();
    target.env = pairs_from(json.at("env"));
    target.secret_env = json.at("secret_env").get<std::vector<std::string>>();
    if (json.contains("agent")) {
      auto agent = agent_from(json.at("agent"));
      if (!agent) return agent.error();
      target.agent = std::move(*agent);
    }
    if (target.type == TargetType::kWorkflow) {
      target.workflow_id = json.at("workflow_id").get<std::string>();
      target.input_json = json.at("input").get<std::string>();
    }
    return target;
  } catch (const nlohmann::json::exception& error) {
    return internal_error("the stored target is not valid (" + json_reason(error) + ")");
  }
}

std::string encode_labels(const std::vector<EnvVar>& labels) {
  return write_json(pairs_json(labels));
}

Result<std::vector<EnvVar>> decode_labels(const std::string& text) {
  try {
    const nlohmann::json json = read_json(text);
    if (json.is_discarded()) {
      return internal_error("the stored machine labels are not valid (it is not valid JSON)");
    }
    return pairs_from(json);
  } catch (const nlohmann::json::exception& error) {
    return internal_error("the stored machine labels are not valid (" + json_reason(error) + ")");
  }
}

}  // namespace orrery
