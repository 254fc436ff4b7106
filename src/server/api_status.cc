// /v1/status, /v1/cooldowns, /healthz and /readyz (docs/server.md, "Status
// and health").
#include <nlohmann/json.hpp>

#include "cli/status_command.h"
#include "core/exact_json.h"
#include "server/api.h"
#include "server/api_response.h"
#include "server/command_call.h"

namespace orrery::server {
namespace {

using cli::Context;

HttpResponse status(const ApiSettings& settings) {
  return call_command(settings.globals, [](const Context& c) { return cli::status_command(c); });
}

std::string dumped(const nlohmann::json& document) { return write_json(document, 2) + "\n"; }

// The status document's cooldowns, as a list.
HttpResponse cooldowns(const ApiSettings& settings) {
  HttpResponse response = status(settings);
  if (response.status != 200) return response;
  const auto document = read_json(response.body);
  return json_response(200, dumped(document.value("cooldowns", nlohmann::json::array())));
}

// Ready: the store answers and some daemon holds the lease.
HttpResponse ready(const ApiSettings& settings) {
  HttpResponse response = status(settings);
  if (response.status != 200) {
    response.status = 503;
    response.headers.emplace_back("Retry-After", std::to_string(kRetryAfterSeconds));
    return response;
  }
  const auto document = read_json(response.body);
  const bool held = document.is_object() && document["daemon"].value("held", false);
  nlohmann::json answer{{"ready", held}, {"store", "reachable"}, {"daemon", document["daemon"]}};
  if (!held) answer["reason"] = "no daemon holds the lease";
  HttpResponse ready = json_response(held ? 200 : 503, dumped(answer));
  if (!held) ready.headers.emplace_back("Retry-After", std::to_string(kRetryAfterSeconds));
  return ready;
}

}  // namespace

void add_status_routes(ApiRouter& router, const ApiSettings& settings) {
  router.add("GET", "/v1/status",
             [&settings](const HttpRequest&, const PathValues&) { return status(settings); });
  router.add("GET", "/v1/cooldowns",
             [&settings](const HttpRequest&, const PathValues&) { return cooldowns(settings); });
  router.add("GET", "/healthz", [](const HttpRequest&, const PathValues&) {
    return json_response(200, "{\"ok\": true}\n");
  });
  router.add("GET", "/readyz",
             [&settings](const HttpRequest&, const PathValues&) { return ready(settings); });
}

ApiRouter api_router(const ApiSettings& settings) {
  ApiRouter router;
  add_loop_routes(router, settings);
  add_run_routes(router, settings);
  add_workflow_routes(router, settings);
  add_admission_routes(router, settings);
  add_goal_routes(router, settings);
  add_status_routes(router, settings);
  return router;
}

}  // namespace orrery::server
