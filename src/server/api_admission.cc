// /v1/routes and /v1/items: routes, their queues, enqueueing (the webhook
// entry point, signed and in GitHub's format: server/webhook_signature.h,
// core/github_delivery.h), an item, requeue, cancel (docs/server.md, "Admission").
#include <nlohmann/json.hpp>

#include "cli/item_commands.h"
#include "cli/route_commands.h"
#include "core/exact_json.h"
#include "core/github_delivery.h"
#include "core/text.h"
#include "core/work_item_json.h"
#include "ops/items.h"
#include "server/api.h"
#include "server/api_parameters.h"
#include "server/api_response.h"
#include "server/command_call.h"
#include "server/ops_call.h"
#include "server/webhook_signature.h"
#include "views/admission_view.h"
#include "views/document_text.h"

namespace orrery::server {
namespace {

using cli::Context;

HttpResponse list_items(const ApiSettings& settings, const HttpRequest& request,
                        const std::string& route) {
  cli::ItemArgs args;
  args.route = route;
  auto status = text_parameter(request, "status");
  if (!status) return error_response(status.error());
  auto project = text_parameter(request, "project");
  if (!project) return error_response(project.error());
  auto limit = number_parameter(request, "limit", 100, 1, 10'000);
  if (!limit) return error_response(limit.error());
  auto offset = cursor_offset(request);
  if (!offset) return error_response(offset.error());
  args.status = *status;
  args.project = *project;
  args.limit = *limit;
  args.offset = *offset;
  return call_listing(
      settings.globals, [&](const Context& c) { return cli::list_items_command(args, c); },
      request);
}

// The route's webhook_secret_env, or the response of a route that is not.
Result<std::string> webhook_secret_env(const ApiSettings& settings, const std::string& route,
                                       HttpResponse& refused) {
  cli::RouteArgs args;
  args.route = route;
  refused = call_command(settings.globals,
                         [&](const Context& c) { return cli::show_route_command(args, c); });
  if (refused.status != 200) return internal_error("route not shown");
  const auto document = read_json(refused.body);
  const auto found = document.is_object() ? document.find("webhook_secret_env") : document.end();
  if (found == document.end() || !found->is_string()) {
    refused =
        refusal(500, "internal", "route '" + route + "' was shown without its webhook secret");
    return internal_error("no webhook secret field");
  }
  return found->get<std::string>();
}

// The enqueue object of the request: its body, or with ?format=github the
// item GitHub's delivery names (core/github_delivery.h); nothing when the
// delivery is not work, and then `ignored` holds the answer.
Result<std::optional<std::string>> enqueue_object(const HttpRequest& request,
                                                  HttpResponse& ignored) {
  const std::string* format = request.parameter("format");
  if (format == nullptr || *format == "item") return std::optional<std::string>(request.body);
  if (*format != "github") {
    return usage_error("format '" + visible(*format) + "': expected item (the default) or github");
  }
  auto work = read_github_delivery(
      {request.header("x-github-event"), request.header("x-github-delivery"), request.body});
  if (!work) return work.error();
  if (work->enqueue_object) return work->enqueue_object;
  ignored = json_response(
      200, write_json(nlohmann::json{{"outcome", "ignored"}, {"reason", work->ignored}}));
  return std::optional<std::string>();
}

// 201 for a new item, 200 for one refreshed, a duplicate or a delivery
// that is not work; 401 when the route's signature does not hold.
HttpResponse enqueue(const ApiSettings& settings, const HttpRequest& request,
                     const std::string& route) {
  HttpResponse refused;
  auto secret_env = webhook_secret_env(settings, route, refused);
  if (!secret_env) return refused;
  if (auto refusal = refuse_webhook(route, *secret_env, request, settings.environment)) {
    return std::move(*refusal);
  }
  HttpResponse ignored;
  auto object = enqueue_object(request, ignored);
  if (!object) return error_response(object.error());
  if (!*object) return ignored;
  auto item = parse_enqueue_object(**object);
  if (!item) return error_response(item.error());
  return call_writing(settings.globals, [&](const cli::OpenedStore& opened, TimeMs now) {
    Store& store = *opened.store;
    auto enqueued = ops::enqueue({store, store, opened.home, now}, route, std::move(*item));
    if (!enqueued) return Result<HttpResponse>(enqueued.error());
    const nlohmann::json document{{"item", item_json(enqueued->item, "", now)},
                                  {"outcome", enqueue_outcome_name(enqueued->outcome)}};
    const int status = enqueued->outcome == EnqueueOutcome::kCreated ? 201 : 200;
    return Result<HttpResponse>(json_response(status, json_text(document) + "\n"));
  });
}

// {"reason": TEXT} or nothing.
Status read_reason(const HttpRequest& request, cli::ItemArgs& args) {
  auto body = json_body(request);
  if (!body) return body.error();
  for (const auto& [key, value] : body->items()) {
    if (key != "reason" || !value.is_string()) {
      return usage_error("the body takes {\"reason\": TEXT}; got the key '" + key + "'");
    }
    args.reason = value.get<std::string>();
  }
  return Ok{};
}

void add_route_paths(ApiRouter& router, const ApiSettings& settings) {
  router.add("GET", "/v1/routes", [&settings](const HttpRequest&, const PathValues&) {
    cli::RouteArgs args;
    return call_command(settings.globals,
                        [&](const Context& c) { return cli::list_routes_command(args, c); });
  });
  router.add("GET", "/v1/routes/{route}", [&settings](const HttpRequest&, const PathValues& path) {
    cli::RouteArgs args;
    args.route = path.at("route");
    return call_command(settings.globals,
                        [&](const Context& c) { return cli::show_route_command(args, c); });
  });
  router.add("GET", "/v1/routes/{route}/items",
             [&settings](const HttpRequest& r, const PathValues& path) {
               return list_items(settings, r, path.at("route"));
             });
  router.add("POST", "/v1/routes/{route}/items",
             [&settings](const HttpRequest& r, const PathValues& path) {
               return enqueue(settings, r, path.at("route"));
             });
}

void add_item_paths(ApiRouter& router, const ApiSettings& settings) {
  router.add("GET", "/v1/items", [&settings](const HttpRequest& r, const PathValues&) {
    auto route = text_parameter(r, "route");
    if (!route) return error_response(route.error());
    return list_items(settings, r, *route);
  });
  router.add("GET", "/v1/items/{item}", [&settings](const HttpRequest&, const PathValues& path) {
    cli::ItemArgs args;
    args.item = path.at("item");
    return call_command(settings.globals,
                        [&](const Context& c) { return cli::show_item_command(args, c); });
  });
  using ItemCommand = Result<int> (*)(const cli::ItemArgs&, const Context&);
  const std::pair<const char*, ItemCommand> actions[] = {
      {"/v1/items/{item}/requeue", cli::requeue_item_command},
      {"/v1/items/{item}/cancel", cli::cancel_item_command}};
  for (const auto& [pattern, command] : actions) {
    router.add("POST", pattern, [&settings, command](const HttpRequest& r, const PathValues& path) {
      cli::ItemArgs args;
      args.item = path.at("item");
      if (auto read = read_reason(r, args); !read) return error_response(read.error());
      return call_command(settings.globals, [&](const Context& c) { return command(args, c); });
    });
  }
}

}  // namespace

void add_admission_routes(ApiRouter& router, const ApiSettings& settings) {
  add_route_paths(router, settings);
  add_item_paths(router, settings);
}

}  // namespace orrery::server
