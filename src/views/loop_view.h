// The loop document of docs/cli.md ("The loop document") and its parts:
// one source for `ls`, `show`, `add`/`edit --json`, the HTTP API and MCP.
// Fields may be added, never renamed; secrets appear by name only.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "core/loop.h"
#include "core/schedule.h"

namespace orrery {

// {type, expression | every_ms, anchor | at | min_ms, max_ms, timezone, jitter_ms}
nlohmann::json schedule_json(const Schedule& schedule);

// The loop document of docs/cli.md.
nlohmann::json loop_json(const Loop& loop);

// Instants (a loop's next slots) as an array of texts.
nlohmann::json times_json(const std::vector<TimeMs>& times);

}  // namespace orrery
