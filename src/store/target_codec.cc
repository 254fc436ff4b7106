#include "store/target_codec.h"

#include <nlohmann/json.hpp>

namespace orrery {
namespace {

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

nlohmann::json agent_json(const AgentTarget& agent) {
  return {{"provider", provider_name(agent.provider)},
          {"prompt", agent.prompt},
          {"prompt_file", agent.prompt_file},
          {"model", agent.model},
          {"variant", agent.variant},
          {"agent", agent.agent},
          {"permission_mode", agent.permission_mode},
          {"sandbox", agent.sandbox},
          {"config_isolation", agent.config_isolation},
          {"add_dirs", agent.add_dirs},
          {"extra_args", agent.extra_args},
          {"cwd", agent.cwd},
          {"auth_profile", agent.auth_profile}};
}

AgentTarget agent_from(const nlohmann::json& json) {
  AgentTarget agent;
  auto provider = parse_provider(json.at("provider").get<std::string>());
  if (provider) agent.provider = *provider;
  agent.prompt = json.at("prompt").get<std::string>();
  agent.prompt_file = json.at("prompt_file").get<std::string>();
  agent.model = json.at("model").get<std::string>();
  agent.variant = json.at("variant").get<std::string>();
  agent.agent = json.at("agent").get<std::string>();
  agent.permission_mode = json.at("permission_mode").get<std::string>();
  agent.sandbox = json.at("sandbox").get<std::string>();
  agent.config_isolation = json.at("config_isolation").get<std::string>();
  agent.add_dirs = json.at("add_dirs").get<std::vector<std::string>>();
  agent.extra_args = json.at("extra_args").get<std::vector<std::string>>();
  agent.cwd = json.at("cwd").get<std::string>();
  agent.auth_profile = json.at("auth_profile").get<std::string>();
  return agent;
}

}  // namespace

std::string encode_target(const Target& target) {
  nlohmann::json json{{"type", target_type_name(target.type)},
                      {"argv", target.argv},
                      {"shell", target.shell},
                      {"command_line", target.command_line},
                      {"cwd", target.cwd},
                      {"env", pairs_json(target.env)},
                      {"secret_env", target.secret_env}};
  if (target.agent) json["agent"] = agent_json(*target.agent);
  return json.dump();
}

Result<Target> decode_target(const std::string& text) {
  // Stored JSON is ours; a parse failure means a damaged row.
  try {
    const nlohmann::json json = nlohmann::json::parse(text);
    Target target;
    const std::string type = json.at("type").get<std::string>();
    target.type = type == "agent"      ? TargetType::kAgent
                  : type == "workflow" ? TargetType::kWorkflow
                                       : TargetType::kCommand;
    target.argv = json.at("argv").get<std::vector<std::string>>();
    target.shell = json.at("shell").get<bool>();
    target.command_line = json.at("command_line").get<std::string>();
    target.cwd = json.at("cwd").get<std::string>();
    target.env = pairs_from(json.at("env"));
    target.secret_env = json.at("secret_env").get<std::vector<std::string>>();
    if (json.contains("agent")) target.agent = agent_from(json.at("agent"));
    return target;
  } catch (const nlohmann::json::exception& error) {
    return internal_error(std::string("stored target is damaged: ") + error.what());
  }
}

std::string encode_labels(const std::vector<EnvVar>& labels) { return pairs_json(labels).dump(); }

Result<std::vector<EnvVar>> decode_labels(const std::string& text) {
  try {
    return pairs_from(nlohmann::json::parse(text));
  } catch (const nlohmann::json::exception& error) {
    return internal_error(std::string("stored machine labels are damaged: ") + error.what());
  }
}

}  // namespace orrery
