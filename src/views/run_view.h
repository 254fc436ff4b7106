// The run document of docs/cli.md ("The run document") as stored: one
// source for `runs`, `run show`, `trigger --wait`, the HTTP API and MCP.
// Fields may be added, never renamed.
#pragma once

#include <nlohmann/json.hpp>

#include "core/run.h"

namespace orrery {

// The run's fields; with_output adds its stdout and stderr tails.
nlohmann::json run_json(const Run& run, bool with_output);

}  // namespace orrery
