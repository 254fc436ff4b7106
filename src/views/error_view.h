// The error document every face answers a failed command with:
// {"error": {"code", "message"}} (docs/cli.md, "Exit statuses").
#pragma once

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace orrery {

nlohmann::json error_json(const Error& error);

}  // namespace orrery
