// The HTTP API under /v1 (docs/server.md, "Paths"): every path, the command
// of the CLI that answers it, and the status of its success. Handlers read
// the request into the command's arguments and let call_command
// (server/command_call.h) answer.
#pragma once

#include <cstdlib>

#include "cli/command.h"
#include "server/api_router.h"
#include "server/event_stream.h"
#include "server/metrics_page.h"
#include "server/webhook_signature.h"

namespace orrery::server {

struct ApiSettings {
  cli::Globals globals;  // the server's --home and --db
  // Where webhook secrets are read (the server's environment).
  EnvironmentLookup environment = [](const char* name) { return std::getenv(name); };
};

void add_loop_routes(ApiRouter& router, const ApiSettings& settings);
void add_run_routes(ApiRouter& router, const ApiSettings& settings);
void add_workflow_routes(ApiRouter& router, const ApiSettings& settings);
void add_admission_routes(ApiRouter& router, const ApiSettings& settings);
void add_goal_routes(ApiRouter& router, const ApiSettings& settings);
void add_status_routes(ApiRouter& router, const ApiSettings& settings);

// GET /v1/events, from the hub (which outlives the router).
void add_event_routes(ApiRouter& router, EventHub& hub, const EventStreamSettings& settings);

// GET /metrics, from the page (which outlives the router).
void add_metrics_route(ApiRouter& router, MetricsPage& page);

// Every route above but the events' and the metrics'.
ApiRouter api_router(const ApiSettings& settings);

}  // namespace orrery::server
