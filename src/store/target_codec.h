// The JSON forms in which a loop's target and machine labels are stored
// (one column each). Shared by every backend. An agent target has one JSON
// shape, stored and shown alike (docs/cli.md, the loop document). A stored
// type or provider this version does not know is refused, never guessed.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/loop.h"
#include "core/result.h"

namespace orrery {

// {provider, prompt, prompt_file, model, effort, agent, permission_mode,
// sandbox, config_isolation, add_dirs, extra_args, cwd, auth_profile}; text
// that was not given is null.
nlohmann::json agent_target_json(const AgentTarget& agent);

std::string encode_target(const Target& target);
Result<Target> decode_target(const std::string& json);
std::string encode_labels(const std::vector<EnvVar>& labels);
Result<std::vector<EnvVar>> decode_labels(const std::string& json);

}  // namespace orrery
