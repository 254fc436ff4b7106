// /v1/goals: list, show, turns, pause, resume, budget (docs/server.md, "Goals").
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/goal_commands.h"
#include "core/exact_json.h"
#include "core/token_amount.h"
#include "ops/goals.h"
#include "server/api.h"
#include "server/api_parameters.h"
#include "server/api_response.h"
#include "server/command_call.h"
#include "server/ops_call.h"
#include "views/document_text.h"
#include "views/goal_view.h"

namespace orrery::server {
namespace {

using cli::Context;
using GoalCommand = Result<int> (*)(const cli::GoalArgs&, const Context&);

HttpResponse answer(const ApiSettings& settings, const cli::GoalArgs& args, GoalCommand command) {
  return call_command(settings.globals, [&](const Context& c) { return command(args, c); });
}

using GoalChange = Result<Goal> (*)(const ops::GoalPlace& place, const std::string& goal);

// The goal's document after the change.
HttpResponse change(const ApiSettings& settings,
                    const std::function<Result<Goal>(const ops::GoalPlace&)>& changing) {
  return call_writing(settings.globals, [&](const cli::OpenedStore& opened, TimeMs now) {
    auto changed = changing({*opened.store, opened.home, now});
    if (!changed) return Result<HttpResponse>(changed.error());
    return Result<HttpResponse>(json_response(200, json_text(goal_json(*changed)) + "\n"));
  });
}

HttpResponse list(const ApiSettings& settings, const HttpRequest& request) {
  cli::GoalArgs args;
  auto status = text_parameter(request, "status");
  if (!status) return error_response(status.error());
  auto loop = text_parameter(request, "loop");
  if (!loop) return error_response(loop.error());
  auto limit = number_parameter(request, "limit", 100, 1, 10'000);
  if (!limit) return error_response(limit.error());
  auto offset = cursor_offset(request);
  if (!offset) return error_response(offset.error());
  args.limit = *limit;
  args.offset = *offset;
  args.status = *status;
  args.loop = *loop;
  return call_listing(
      settings.globals, [&](const Context& c) { return cli::list_goals_command(args, c); },
      request);
}

// {"add": "200k"} or {"set": "1.5M"}: amounts as goal budget takes them.
HttpResponse budget(const ApiSettings& settings, const HttpRequest& request,
                    const std::string& goal) {
  auto body = json_body(request);
  if (!body) return error_response(body.error());
  std::optional<std::string> add;
  std::optional<std::string> set;
  for (const auto& [key, value] : body->items()) {
    if ((key != "add" && key != "set") ||
        !(value.is_string() || value.is_number_integer() || is_kept_number(value))) {
      return error_response(usage_error(
          "the budget body takes {\"add\": AMOUNT} or {\"set\": AMOUNT} (200000, \"200k\", "
          "\"1.5M\"); got the key '" +
          key + "'"));
    }
    const std::string amount = value.is_string() ? value.get<std::string>() : write_json(value);
    (key == "add" ? add : set) = amount;
  }
  if (add.has_value() == set.has_value()) {
    return error_response(usage_error("give one of --add TOKENS or --set TOKENS"));
  }
  auto tokens = parse_token_amount(add ? *add : *set, add ? "--add" : "--set");
  if (!tokens) return error_response(tokens.error());
  const ops::BudgetChange wanted{add.has_value(), *tokens};
  return change(settings, [&](const ops::GoalPlace& place) {
    return ops::change_goal_budget(place, goal, wanted);
  });
}

}  // namespace

void add_goal_routes(ApiRouter& router, const ApiSettings& settings) {
  router.add("GET", "/v1/goals",
             [&settings](const HttpRequest& r, const PathValues&) { return list(settings, r); });
  router.add("GET", "/v1/goals/{goal}/turns",
             [&settings](const HttpRequest& r, const PathValues& path) {
               cli::GoalArgs args;
               args.goal = path.at("goal");
               if (r.parameter("limit") != nullptr) {
                 auto limit = number_parameter(r, "limit", 20, 1, 10'000);
                 if (!limit) return error_response(limit.error());
                 args.limit = *limit;
               }
               return answer(settings, args, cli::goal_turns_command);
             });
  router.add("GET", "/v1/goals/{goal}", [&settings](const HttpRequest&, const PathValues& path) {
    cli::GoalArgs args;
    args.goal = path.at("goal");
    return answer(settings, args, cli::show_goal_command);
  });
  const std::pair<const char*, GoalChange> changes[] = {
      {"/v1/goals/{goal}/pause", &ops::pause_goal},
      {"/v1/goals/{goal}/resume", &ops::resume_goal},
      {"/v1/goals/{goal}/cancel", &ops::cancel_goal}};
  for (const auto& [route, changing] : changes) {
    router.add("POST", route, [&settings, changing](const HttpRequest&, const PathValues& path) {
      const std::string goal = path.at("goal");
      return change(settings, [&](const ops::GoalPlace& place) { return changing(place, goal); });
    });
  }
  router.add("POST", "/v1/goals/{goal}/budget",
             [&settings](const HttpRequest& r, const PathValues& path) {
               return budget(settings, r, path.at("goal"));
             });
}

}  // namespace orrery::server
