// The tools and resources `orrery mcp` offers an agent (docs/mcp.md, "Tools"),
// by scope: read (list and show loops, runs, their output, goals), run (read,
// and trigger a loop, choose a dynamic loop's next slot, update the goal from
// inside its run), manage (run, and create, pause and resume loops, enqueue
// items).
//
// Invariants: a tool answers with the document the HTTP API (and so the CLI)
// gives for the same request, wrapped in an object when it is a list; a tool
// outside the session's scope is not offered; create_loop stops after
// max_created_loops loops created in the session.
#pragma once

#include <memory>
#include <vector>

#include "core/result.h"
#include "server/api.h"
#include "server/mcp_session.h"

namespace orrery::server {

enum class McpScope { kRead, kRun, kManage };
Result<McpScope> parse_mcp_scope(std::string_view text);

struct McpToolOptions {
  McpScope scope = McpScope::kRead;
  int max_created_loops = 10;
  // The environment of the session (ORRERY_RUN_ID, ORRERY_GOAL_ID,
  // ORRERY_GOAL_UPDATE inside a run).
  EnvironmentLookup environment = [](const char* name) { return std::getenv(name); };
};

// The tools of the scope, answering through `router` (which outlives them).
std::vector<McpTool> mcp_tools(const ApiRouter& router, const ApiSettings& settings,
                               const McpToolOptions& options);

// Run logs as resources: orrery://runs/RUN/stdout and /stderr of the newest runs.
McpResources mcp_resources(const ApiRouter& router);

}  // namespace orrery::server
