#include "server/webhook_signature.h"

#include "core/hmac.h"
#include "core/secret_compare.h"
#include "server/api_response.h"
#include "server/api_router.h"

namespace orrery::server {
namespace {

HttpResponse bad_signature(const std::string& message) {
  return refusal(401, "bad_signature", message);
}

}  // namespace

std::optional<HttpResponse> refuse_webhook(const std::string& route, const std::string& secret_env,
                                           const HttpRequest& request,
                                           const EnvironmentLookup& environment) {
  const std::string& presented = request.header(kSignatureHeader);
  if (secret_env.empty()) {
    if (presented.empty()) return std::nullopt;
    return bad_signature("route '" + route +
                         "' has no webhook secret, so its X-Hub-Signature-256 cannot be checked; "
                         "give it one with `orrery route edit " +
                         route + " --webhook-secret-env NAME`");
  }
  const char* secret = environment(secret_env.c_str());
  if (secret == nullptr || *secret == '\0') {
    return refusal(500, "webhook_secret_missing",
                   "route '" + route + "' checks webhooks with the secret in $" + secret_env +
                       ", which this server's environment does not set; nothing was enqueued");
  }
  if (presented.empty()) {
    return bad_signature("route '" + route +
                         "' takes only signed posts: 'X-Hub-Signature-256: sha256=HEX', the "
                         "HMAC-SHA-256 of the body under the secret in $" +
                         secret_env);
  }
  const std::string expected = "sha256=" + hex_lower(hmac_sha256(secret, request.body));
  if (!secrets_equal(presented, expected)) {
    return bad_signature("X-Hub-Signature-256 does not match the body signed with the secret in $" +
                         secret_env + " (give 'sha256=' and 64 lowercase hex digits)");
  }
  return std::nullopt;
}

bool is_signed_item_post(const HttpRequest& request) {
  if (request.method != "POST" || request.header(kSignatureHeader).empty()) return false;
  // Split as the router splits (server/api_router.h), so this matches exactly
  // the requests POST /v1/routes/{route}/items answers.
  auto segments = path_segments(request.path);
  return segments && segments->size() == 4 && (*segments)[0] == "v1" &&
         (*segments)[1] == "routes" && !(*segments)[2].empty() && (*segments)[3] == "items";
}

}  // namespace orrery::server
