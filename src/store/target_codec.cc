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

}  // namespace

std::string encode_target(const Target& target) {
  nlohmann::json json{{"type", target_type_name(target.type)},
                      {"argv", target.argv},
                      {"shell", target.shell},
                      {"command_line", target.command_line},
                      {"cwd", target.cwd},
                      {"env", pairs_json(target.env)},
                      {"secret_env", target.secret_env}};
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
