// Who may ask what of `orrery serve` (docs/server.md, "Security").
//
// Invariants, checked before any handler runs:
// - a signed POST of items (server/webhook_signature.h) is authenticated by
//   its signature, which its handler checks, not by these rules;
// - with a token, every request but GET /healthz and the dashboard's files
//   (which hold no data: server/dashboard.h) carries
//   `Authorization: Bearer TOKEN`, compared in constant time (401 otherwise);
// - without one (loopback only), the Host header must name a loopback host,
//   so that a web page whose DNS name was rebound to 127.0.0.1 reads nothing
//   (403);
// - a request that changes something and carries no valid token must not
//   come from another site's page: an Origin other than the server's own, or
//   Sec-Fetch-Site cross-site or same-site, is 403.
#pragma once

#include <optional>
#include <string>

#include "server/http_message.h"

namespace orrery::server {

struct AccessPolicy {
  std::optional<std::string> token;  // the bearer token; none: loopback only
};

// The refusal of a request the policy does not let through, or nothing.
std::optional<HttpResponse> refuse_access(const AccessPolicy& policy, const HttpRequest& request);

// Whether a Host header's host (without its port) is loopback: localhost,
// 127.0.0.0/8, [::1].
bool is_loopback_host(const std::string& host_header);

}  // namespace orrery::server
