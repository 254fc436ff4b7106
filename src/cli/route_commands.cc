#include "cli/route_commands.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/caller_paths.h"
#include "cli/human.h"
#include "cli/store_access.h"
#include "cli/workflow_target.h"
#include "core/duration.h"
#include "core/exit_codes.h"
#include "core/limits.h"
#include "core/text.h"
#include "exec/wake.h"
#include "views/admission_view.h"
#include "views/document_text.h"

namespace orrery::cli {
namespace {

std::map<ItemStatus, std::int64_t> counts_of(const std::map<std::string, ItemCounts>& counts,
                                             const std::string& route_id) {
  auto found = counts.find(route_id);
  return found == counts.end() ? std::map<ItemStatus, std::int64_t>{} : found->second.by_status;
}

std::string limit_text(int limit) { return limit == 0 ? "-" : std::to_string(limit); }

// The options given, applied over `route` (its defaults for add).
Status apply_options(Store& store, const RouteArgs& args, Route& route) {
  if (!args.workflow.empty()) {
    auto workflow = resolve_workflow_reference(store, args.workflow, "--workflow");
    if (!workflow) return workflow.error();
    route.workflow_id = workflow->id;
    route.workflow_name = workflow->name;
    route.workflow_version = workflow->version;
  }
  if (args.max_running) route.max_running = *args.max_running;
  if (args.max_per_project) route.max_per_project = *args.max_per_project;
  if (args.max_per_group) route.max_per_group = *args.max_per_group;
  if (args.max_attempts) route.max_attempts = *args.max_attempts;
  if (args.retry_delay) {
    auto delay = parse_duration_option(*args.retry_delay, "--retry-delay", kMaxRetryDelayMs,
                                       ZeroDuration::kAllowed);
    if (!delay) return delay.error();
    route.retry_delay_ms = *delay;
  }
  if (args.retry_backoff) {
    auto backoff = parse_backoff(*args.retry_backoff);
    if (!backoff) {
      return usage_error("--retry-backoff '" + visible(*args.retry_backoff) +
                         "': expected fixed or exponential");
    }
    route.retry_backoff = *backoff;
  }
  if (args.priority_aging) {
    const std::string& text = *args.priority_aging;
    if (text == "off" || text == "none") {
      route.priority_aging_ms = 0;
    } else {
      auto aging = parse_duration_option(text, "--priority-aging", kMaxPriorityAgingMs,
                                         ZeroDuration::kAllowed);
      if (!aging) return aging.error();
      route.priority_aging_ms = *aging;
    }
  }
  if (args.description) route.description = *args.description;
  if (args.cwd) route.cwd = *args.cwd;  // absolute (cli/app.cc, path options)
  if (args.webhook_secret_env) {
    route.webhook_secret_env = *args.webhook_secret_env == "none" ? "" : *args.webhook_secret_env;
  }
  return check_route(route);
}

void print_route(const Context& context, const Route& route,
                 const std::map<ItemStatus, std::int64_t>& counts) {
  if (context.globals.json) {
    *context.out << json_text(route_json(route, counts)) << '\n';
    return;
  }
  auto count = [&](ItemStatus status) {
    auto found = counts.find(status);
    return format_count(found == counts.end() ? 0 : found->second);
  };
  std::string items;
  for (ItemStatus status : {ItemStatus::kQueued, ItemStatus::kDeferred, ItemStatus::kAdmitted,
                            ItemStatus::kRunning, ItemStatus::kSucceeded, ItemStatus::kFailed,
                            ItemStatus::kDeadLetter, ItemStatus::kCancelled}) {
    items += (items.empty() ? "" : ", ") + count(status) + " " + item_status_name(status);
  }
  std::vector<std::pair<std::string, std::string>> fields{
      {"id", route.id},
      {"name", route.name},
      {"workflow", route.workflow_name + " (version " + std::to_string(route.workflow_version) +
                       ", " + route.workflow_id + ")"},
      {"status", route_status_name(route.status)},
      {"max running", std::to_string(route.max_running)},
      {"max per project", limit_text(route.max_per_project)},
      {"max per group", limit_text(route.max_per_group)},
      {"attempts", std::to_string(route.max_attempts) + ", retried after " +
                       format_duration(route.retry_delay_ms) + " (" +
                       backoff_name(route.retry_backoff) + ")"},
      {"priority aging",
       route.priority_aging_ms == 0 ? "-" : "+1 every " + format_duration(route.priority_aging_ms)},
      {"working directory", route.cwd.empty() ? "the daemon's" : route.cwd},
      {"webhook signature", route.webhook_secret_env.empty()
                                ? "not required"
                                : "required, secret in $" + route.webhook_secret_env},
      {"items", items},
      {"created", format_relative(route.created_at, context.now)}};
  if (!route.description.empty()) fields.push_back({"description", route.description});
  print_fields(*context.out, fields);
}

Result<int> show_one(Store& store, const Context& context, const Route& route) {
  auto counts = store.count_items_by_route();
  if (!counts) return counts.error();
  print_route(context, route, counts_of(*counts, route.id));
  return kExitOk;
}

Result<int> set_status(const RouteArgs& args, const Context& context, RouteStatus status) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  Store& store = *opened->store;
  auto route = store.resolve_route(args.route);
  if (!route) return route.error();
  const RouteStatus was = route->status;
  route->status = status;
  if (was != status) {
    auto updated = store.update_route(*route, context.now);
    if (!updated) return updated.error();
    *route = *updated;
    notify_daemon(opened->home);
  }
  if (context.globals.json) return show_one(store, context, *route);
  *context.out << (was == status
                       ? "route " + terminal_text(route->name) + " is " +
                             route_status_name(status) + " already"
                       : std::string(status == RouteStatus::kPaused ? "paused" : "resumed") +
                             " route " + terminal_text(route->name))
               << '\n';
  return kExitOk;
}

}  // namespace

Result<int> add_route_command(const RouteArgs& args, const Context& context) {
  if (args.workflow.empty()) {
    return usage_error("route add " + visible(args.route) +
                       " needs --workflow W[@VERSION]: the workflow each item runs");
  }
  auto opened = open_store(context);
  if (!opened) return opened.error();
  Store& store = *opened->store;
  Route route;
  route.name = args.route;
  if (!args.cwd) {
    auto here = caller_path("--cwd (by default the directory route add runs in)", ".");
    if (!here) return here.error();
    route.cwd = std::move(*here);
  }
  if (auto applied = apply_options(store, args, route); !applied) return applied.error();
  auto created = store.create_route(route, context.now);
  if (!created) return created.error();
  if (context.globals.json) return show_one(store, context, *created);
  *context.out << "added route " << terminal_text(created->name) << " (" << created->id
               << "): workflow " << terminal_text(created->workflow_name) << " version "
               << created->workflow_version << '\n';
  return kExitOk;
}

Result<int> list_routes_command(const RouteArgs&, const Context& context) {
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  Store& store = *opened->store;
  auto routes = store.list_routes();
  if (!routes) return routes.error();
  auto counts = store.count_items_by_route();
  if (!counts) return counts.error();
  if (context.globals.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const Route& route : *routes)
      list.push_back(route_json(route, counts_of(*counts, route.id)));
    *context.out << json_text(list) << '\n';
    return kExitOk;
  }
  if (routes->empty()) {
    *context.out << "no routes; add one with: orrery route add NAME --workflow W\n";
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  for (const Route& route : *routes) {
    const ItemCounts& by = (*counts)[route.id];
    rows.push_back({route.name, route.workflow_name + "@" + std::to_string(route.workflow_version),
                    route_status_name(route.status), std::to_string(route.max_running),
                    limit_text(route.max_per_project), limit_text(route.max_per_group),
                    format_count(by.of(ItemStatus::kQueued) + by.of(ItemStatus::kDeferred)),
                    format_count(by.of(ItemStatus::kAdmitted) + by.of(ItemStatus::kRunning)),
                    format_count(by.of(ItemStatus::kFailed)),
                    format_count(by.of(ItemStatus::kDeadLetter))});
  }
  print_table(*context.out,
              {"NAME", "WORKFLOW", "STATUS", "MAX", "PER PROJECT", "PER GROUP", "WAITING",
               "RUNNING", "RETRYING", "DEAD"},
              rows);
  return kExitOk;
}

Result<int> show_route_command(const RouteArgs& args, const Context& context) {
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  auto route = opened->store->resolve_route(args.route);
  if (!route) return route.error();
  return show_one(*opened->store, context, *route);
}

Result<int> edit_route_command(const RouteArgs& args, const Context& context) {
  const bool any = !args.workflow.empty() || args.max_running || args.max_per_project ||
                   args.max_per_group || args.max_attempts || args.retry_delay ||
                   args.retry_backoff || args.priority_aging || args.description || args.cwd ||
                   args.webhook_secret_env;
  if (!any) {
    return usage_error("route edit " + visible(args.route) +
                       " changes nothing: give an option of route add (see route edit --help)");
  }
  auto opened = open_store(context);
  if (!opened) return opened.error();
  Store& store = *opened->store;
  auto route = store.resolve_route(args.route);
  if (!route) return route.error();
  if (auto applied = apply_options(store, args, *route); !applied) return applied.error();
  auto updated = store.update_route(*route, context.now);
  if (!updated) return updated.error();
  notify_daemon(opened->home);
  if (context.globals.json) return show_one(store, context, *updated);
  *context.out << "edited route " << terminal_text(updated->name) << '\n';
  return kExitOk;
}

Result<int> pause_route_command(const RouteArgs& args, const Context& context) {
  return set_status(args, context, RouteStatus::kPaused);
}

Result<int> resume_route_command(const RouteArgs& args, const Context& context) {
  return set_status(args, context, RouteStatus::kActive);
}

Result<int> remove_route_command(const RouteArgs& args, const Context& context) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  Store& store = *opened->store;
  auto route = store.resolve_route(args.route);
  if (!route) return route.error();
  auto runs = store.delete_route(route->id, args.force);
  if (!runs) return runs.error();
  // The items are gone; their runs are stopped as `workflow cancel` stops one.
  std::vector<std::string> cancelled;
  for (const std::string& run_id : *runs) {
    auto run = store.request_workflow_cancel(run_id, context.now);
    if (run) {
      cancelled.push_back(run_id);
    } else if (run.error().code != ErrorCode::kConflict) {
      std::cerr << "orrery: workflow run " << run_id
                << " was not cancelled: " << terminal_text(run.error().message) << '\n';
    }
  }
  if (context.globals.json) {
    *context.out << json_text(nlohmann::json{{"removed", route->id},
                                             {"name", route->name},
                                             {"cancelled_runs", cancelled}})
                 << '\n';
    return kExitOk;
  }
  *context.out << "removed route " << terminal_text(route->name);
  if (!cancelled.empty()) *context.out << "; cancelling " << cancelled.size() << " workflow run(s)";
  *context.out << '\n';
  return kExitOk;
}

}  // namespace orrery::cli
