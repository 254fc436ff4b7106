#include "server/access.h"

#include "core/listen_address.h"
#include "core/secret_compare.h"
#include "server/api_response.h"
#include "server/dashboard.h"
#include "server/webhook_signature.h"

namespace orrery::server {
namespace {

bool changes_something(const std::string& method) {
  return method != "GET" && method != "HEAD" && method != "OPTIONS";
}

bool has_valid_token(const AccessPolicy& policy, const HttpRequest& request) {
  if (!policy.token) return false;
  const std::string& authorization = request.header("authorization");
  const std::string scheme = "Bearer ";
  if (authorization.compare(0, scheme.size(), scheme) != 0) return false;
  return secrets_equal(std::string_view(authorization).substr(scheme.size()), *policy.token);
}

// "http://HOST:PORT" → "HOST:PORT"; "" when it is not an http(s) origin.
std::string origin_authority(const std::string& origin) {
  for (const char* scheme : {"http://", "https://"}) {
    const std::string prefix = scheme;
    if (origin.compare(0, prefix.size(), prefix) == 0) return origin.substr(prefix.size());
  }
  return "";
}

bool from_another_site(const HttpRequest& request) {
  const std::string& site = request.header("sec-fetch-site");
  if (site == "cross-site" || site == "same-site") return true;
  const std::string& origin = request.header("origin");
  if (origin.empty()) return false;
  return origin_authority(origin) != request.header("host");
}

}  // namespace

bool is_loopback_host(const std::string& host_header) {
  std::string host = host_header;
  if (!host.empty() && host.front() == '[') {
    const size_t close = host.find(']');
    if (close == std::string::npos) return false;
    host = host.substr(0, close + 1);
  } else if (const size_t colon = host.rfind(':'); colon != std::string::npos) {
    host = host.substr(0, colon);
  }
  if (host.empty()) return false;
  auto address = parse_listen_address(host + ":0");
  return address && address->loopback;
}

std::optional<HttpResponse> refuse_access(const AccessPolicy& policy, const HttpRequest& request) {
  if (request.method == "GET" && request.path == "/healthz") return std::nullopt;
  const bool static_file = is_dashboard_file(request);
  // Its handler checks the signature against the route's secret and refuses
  // it when the route has none (server/webhook_signature.h).
  if (is_signed_item_post(request)) return std::nullopt;
  const bool authenticated = has_valid_token(policy, request);
  if (policy.token && !authenticated && !static_file) {
    HttpResponse response = refusal(401, "unauthorized",
                                    request.header("authorization").empty()
                                        ? "this server needs 'Authorization: Bearer TOKEN'"
                                        : "the bearer token is not this server's");
    response.headers.emplace_back("WWW-Authenticate", "Bearer");
    return response;
  }
  if (!policy.token && !is_loopback_host(request.header("host"))) {
    return refusal(403, "forbidden",
                   "the Host header must name this loopback server (localhost, 127.0.0.1 or "
                   "[::1]); a server that others reach needs --token-file");
  }
  if (changes_something(request.method) && !authenticated && from_another_site(request)) {
    return refusal(403, "forbidden",
                   "a request from another site's page may not change anything (its Origin is "
                   "not this server's)");
  }
  return std::nullopt;
}

}  // namespace orrery::server
