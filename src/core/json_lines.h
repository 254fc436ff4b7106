// The JSON objects an agent CLI printed (core/usage.h, core/agent_message.h):
// one per line, or the whole text as one. Lines that are not JSON objects
// are skipped; nothing here fails. Include only from core's .cc files: the
// JSON header is heavy.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

namespace orrery {

std::vector<nlohmann::json> json_documents(std::string_view text);

}  // namespace orrery
