// A loop's feed (docs/admission.md, "Feeds"): `--feed ROUTE` resolved to the
// id of a stored route, so that a loop never names a route that is gone
// (`route rm` refuses a route a loop feeds).
#pragma once

#include "core/loop.h"
#include "core/result.h"
#include "store/store.h"

namespace orrery::cli {

// Replaces loop.feed_route_id (a reference: a name, an id or an id prefix)
// with the route's id; an unknown route is a not-found error naming it.
Status resolve_feed_route(RouteCatalog& routes, Loop& loop);

}  // namespace orrery::cli
