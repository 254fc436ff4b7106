#include "cli/feed_route.h"

#include "core/text.h"

namespace orrery::cli {

Status resolve_feed_route(RouteCatalog& routes, Loop& loop) {
  if (loop.feed_route_id.empty()) return Ok{};
  auto route = routes.resolve_route(loop.feed_route_id);
  if (!route) {
    if (route.error().code != ErrorCode::kNotFound) return route.error();
    return not_found_error("--feed " + visible(loop.feed_route_id) +
                           ": no route has that name or id (orrery route ls lists them)");
  }
  loop.feed_route_id = route->id;
  return Ok{};
}

}  // namespace orrery::cli
