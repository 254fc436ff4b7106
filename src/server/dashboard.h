// The dashboard (docs/server.md, "Dashboard"): GET / and its script and
// style, built into the binary. The files hold no data — the page reads the
// API like any client, with the bearer token when the server has one — so
// they are served without the token (server/access.h).
#pragma once

#include "server/api_router.h"

namespace orrery::server {

void add_dashboard_routes(ApiRouter& router);

// Whether the request is a GET of one of the dashboard's files.
bool is_dashboard_file(const HttpRequest& request);

}  // namespace orrery::server
