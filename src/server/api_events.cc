// GET /v1/events, the live event stream, and GET /metrics (docs/server.md,
// "Live events" and "Metrics").
#include "server/api.h"

namespace orrery::server {

void add_event_routes(ApiRouter& router, EventHub& hub, const EventStreamSettings& settings) {
  router.add("GET", "/v1/events", [&hub, settings](const HttpRequest& request, const PathValues&) {
    return event_stream(hub, request, settings);
  });
}

void add_metrics_route(ApiRouter& router, MetricsPage& page) {
  router.add("GET", "/metrics",
             [&page](const HttpRequest&, const PathValues&) { return page.render(); });
}

}  // namespace orrery::server
