// The JSON forms in which a loop's target and machine labels are stored
// (one column each). Shared by every backend.
#pragma once

#include <string>
#include <vector>

#include "core/loop.h"
#include "core/result.h"

namespace orrery {

std::string encode_target(const Target& target);
Result<Target> decode_target(const std::string& json);
std::string encode_labels(const std::vector<EnvVar>& labels);
Result<std::vector<EnvVar>> decode_labels(const std::string& json);

}  // namespace orrery
