// Signed webhooks (docs/server.md, "Webhooks"): a route whose
// webhook_secret_env names a variable of the server's environment takes a
// POST of items only with `X-Hub-Signature-256: sha256=HEX`, the
// HMAC-SHA-256 of the exact body under that secret, compared in constant
// time.
//
// Invariants: it fails closed — the variable unset or empty is a 500 and
// nothing is enqueued; a signature on a route without a secret is refused
// (the sender expects a check that would not happen); the secret is never
// echoed in a message.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "server/http_message.h"

namespace orrery::server {

inline constexpr char kSignatureHeader[] = "x-hub-signature-256";

// The environment's value of a variable, or nullptr (getenv by default).
using EnvironmentLookup = std::function<const char*(const char* name)>;

// The refusal of a POST to `route` whose signature does not hold, or nothing.
std::optional<HttpResponse> refuse_webhook(const std::string& route, const std::string& secret_env,
                                           const HttpRequest& request,
                                           const EnvironmentLookup& environment);

// Whether the request is a signed POST of items (POST /v1/routes/R/items
// with the signature header): its signature authenticates it instead of a
// bearer token (server/access.h).
bool is_signed_item_post(const HttpRequest& request);

}  // namespace orrery::server
