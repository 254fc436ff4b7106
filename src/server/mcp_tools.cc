#include "server/mcp_tools.h"

#include <fstream>

#include "cli/item_commands.h"
#include "cli/next_in_command.h"
#include "core/enum_names.h"
#include "core/exact_json.h"
#include "core/goal_update.h"
#include "server/api_router.h"
#include "server/command_call.h"

namespace orrery::server {
namespace {

using nlohmann::json;

constexpr NameTable<McpScope, 3> kScopes{{
    {McpScope::kRead, "read"},
    {McpScope::kRun, "run"},
    {McpScope::kManage, "manage"},
}};

json parsed_body(const HttpResponse& response) {
  json document = read_json(response.body);
  if (document.is_discarded()) document = {{"text", response.body}};
  return document;
}

// The document of a response, under `list_key` when it is a list.
McpToolResult result_of(const HttpResponse& response, const std::string& list_key = "") {
  json document = parsed_body(response);
  if (!document.is_object()) document = json{{list_key.empty() ? "result" : list_key, document}};
  return {std::move(document), response.status >= 300};
}

// The cursor of the page after a listing's page; null on its last page.
json next_cursor_of(const HttpResponse& page) {
  for (const auto& [name, value] : page.headers) {
    if (name == "X-Next-Cursor") return value;
  }
  return nullptr;
}

McpToolResult failure(const std::string& code, const std::string& message) {
  return {{{"error", {{"code", code}, {"message", message}}}}, true};
}

// Asks the router as an HTTP client would.
HttpResponse ask(const ApiRouter& router, const std::string& method, const std::string& path,
                 const json& body = nullptr, const std::map<std::string, std::string>& query = {}) {
  HttpRequest request;
  request.method = method;
  request.path = path;
  request.query = query;
  request.headers["host"] = "localhost";
  if (!body.is_null()) {
    request.body = write_json(body);
    request.headers["content-type"] = "application/json";
  }
  return router.dispatch(request);
}

std::string segment(const json& arguments, const char* name) {
  return percent_encoded(arguments.at(name).get<std::string>());
}

json schema(json properties, json required = json::array()) {
  if (properties.is_null()) properties = json::object();
  return {{"type", "object"},
          {"properties", std::move(properties)},
          {"required", std::move(required)},
          {"additionalProperties", false}};
}

json text_property(const std::string& description) {
  return {{"type", "string"}, {"description", description}};
}

const json kLoopArgument = {{"loop", text_property("the loop's name, id or id prefix")}};

// Query parameters from the arguments named, as their text.
std::map<std::string, std::string> query_of(const json& arguments,
                                            std::initializer_list<const char*> names) {
  std::map<std::string, std::string> query;
  for (const char* name : names) {
    if (!arguments.contains(name)) continue;
    const json& value = arguments[name];
    query[name] = value.is_string() ? value.get<std::string>() : write_json(value);
  }
  return query;
}

void add_read_tools(std::vector<McpTool>& tools, const ApiRouter& router,
                    const McpToolOptions& options) {
  tools.push_back(
      {"list_loops", "Every loop: status, schedule, next run, last run.", schema({}),
       [&router](const json&) { return result_of(ask(router, "GET", "/v1/loops"), "loops"); }});
  tools.push_back({"show_loop", "One loop, with its schedule, target and state.",
                   schema(kLoopArgument, {"loop"}), [&router](const json& a) {
                     return result_of(ask(router, "GET", "/v1/loops/" + segment(a, "loop")));
                   }});
  tools.push_back(
      {"list_runs",
       "Runs, newest first, optionally of one loop or status, a page at a time: next_cursor, "
       "when not null, asks for the next page.",
       schema({{"loop", text_property("a loop's name or id")},
               {"status", text_property("succeeded, failed, running, skipped, ...")},
               {"limit", {{"type", "integer"}, {"description", "1 to 10000 (default 100)"}}},
               {"cursor", text_property("the next_cursor of the page before")}}),
       [&router](const json& a) {
         const HttpResponse page = ask(router, "GET", "/v1/runs", nullptr,
                                       query_of(a, {"loop", "status", "limit", "cursor"}));
         McpToolResult result = result_of(page, "runs");
         if (!result.is_error) result.document["next_cursor"] = next_cursor_of(page);
         return result;
       }});
  tools.push_back(
      {"get_run_output", "A byte range of a run's stdout or stderr log (up to 1 MiB).",
       schema({{"run", text_property("the run's id or id prefix")},
               {"stream", {{"type", "string"}, {"enum", {"stdout", "stderr"}}}},
               {"offset", {{"type", "integer"}, {"description", "the first byte (default 0)"}}},
               {"length", {{"type", "integer"}, {"description", "bytes (default 1 MiB)"}}}},
              {"run"}),
       [&router](const json& a) {
         return result_of(ask(router, "GET", "/v1/runs/" + segment(a, "run") + "/log", nullptr,
                              query_of(a, {"stream", "offset", "length"})));
       }});
  tools.push_back({"goal_status",
                   "A goal's status, plan and budget; without 'goal', the goal of this run "
                   "(ORRERY_GOAL_ID) or every goal.",
                   schema({{"goal", text_property("the goal's id or id prefix")}}),
                   [&router, environment = options.environment](const json& a) {
                     std::string goal = a.value("goal", "");
                     if (goal.empty()) {
                       const char* own = environment("ORRERY_GOAL_ID");
                       if (own == nullptr || *own == '\0') {
                         return result_of(ask(router, "GET", "/v1/goals"), "goals");
                       }
                       goal = own;
                     }
                     return result_of(ask(router, "GET", "/v1/goals/" + percent_encoded(goal)));
                   }});
}

McpToolResult update_goal(const json& arguments, const EnvironmentLookup& environment) {
  const char* path = environment("ORRERY_GOAL_UPDATE");
  if (path == nullptr || *path == '\0') {
    return failure(
        "usage", "update_goal works inside a run that has a goal (ORRERY_GOAL_UPDATE is not set)");
  }
  const std::string text = write_json(json{{"goal", arguments}});
  if (auto parsed = parse_goal_update(text); !parsed) {
    return failure("usage", parsed.error().message);
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) return failure("internal", std::string("cannot write the goal update to ") + path);
  return {{{"written", path}, {"update", {{"goal", arguments}}}}, false};
}

void add_run_tools(std::vector<McpTool>& tools, const ApiRouter& router,
                   const ApiSettings& settings, const McpToolOptions& options) {
  tools.push_back({"trigger_loop", "Start a run of the loop now; answers its run id.",
                   schema(kLoopArgument, {"loop"}), [&router](const json& a) {
                     return result_of(
                         ask(router, "POST", "/v1/loops/" + segment(a, "loop") + "/trigger"));
                   }});
  tools.push_back(
      {"schedule_next_run",
       "Inside a run of a dynamic loop: its next slot falls DURATION after this run ends.",
       schema({{"duration", text_property("e.g. 20m, 2h (0 to 365d)")}}, {"duration"}),
       [&settings](const json& a) {
         cli::NextInArgs args;
         args.duration = a.at("duration").get<std::string>();
         return result_of(call_command(settings.globals, [&](const cli::Context& c) {
           return cli::run_next_in_command(args, c);
         }));
       }});
  const json plan_node = {{"type", "object"}};
  tools.push_back(
      {"update_goal",
       "Inside a goal's run: report progress (the goal update of docs/goals.md), applied when "
       "the run ends.",
       schema(
           {{"status", {{"type", "string"}, {"enum", {"active", "blocked", "complete"}}}},
            {"node", text_property("the plan node this turn worked on")},
            {"node_status", text_property("its new status: pending, in_progress, complete, ...")},
            {"evidence", {{"type", "object"}, {"description", "what shows it"}}},
            {"summary", text_property("what this turn did")},
            {"plan",
             {{"type", "array"},
              {"items", plan_node},
              {"description", "the plan of the work not yet complete"}}},
            {"force", {{"type", "boolean"}}}}),
       [environment = options.environment](const json& a) { return update_goal(a, environment); }});
}

void add_manage_tools(std::vector<McpTool>& tools, const ApiRouter& router,
                      const ApiSettings& settings, const McpToolOptions& options) {
  auto created = std::make_shared<int>(0);
  tools.push_back(
      {"create_loop",
       "Add a loop from a loop spec (the body of POST /v1/loops: name, a schedule such as "
       "every or cron, and command or agent).",
       schema({{"spec", {{"type", "object"}, {"description", "the loop spec"}}}}, {"spec"}),
       [&router, created, limit = options.max_created_loops](const json& a) {
         if (*created >= limit) {
           return failure("conflict", "this session created " + std::to_string(*created) +
                                          " loops, its limit (orrery mcp --max-created-loops)");
         }
         McpToolResult result = result_of(ask(router, "POST", "/v1/loops", a.at("spec")));
         if (!result.is_error) ++*created;
         return result;
       }});
  for (const char* action : {"pause", "resume"}) {
    tools.push_back({std::string(action) + "_loop",
                     std::string(action == std::string("pause") ? "Pause" : "Resume") + " a loop.",
                     schema(kLoopArgument, {"loop"}), [&router, action](const json& a) {
                       return result_of(
                           ask(router, "POST", "/v1/loops/" + segment(a, "loop") + "/" + action));
                     }});
  }
  tools.push_back(
      {"enqueue_item",
       "Put a work item on a route's queue (the enqueue object of docs/admission.md).",
       schema({{"route", text_property("the route's name or id")},
               {"item",
                {{"type", "object"}, {"description", "{key, priority, project, intent, ...}"}}}},
              {"route", "item"}),
       [&settings](const json& a) {
         cli::ItemArgs args;
         args.route = a.at("route").get<std::string>();
         args.object = write_json(a.at("item"));
         return result_of(call_command(settings.globals, [&](const cli::Context& c) {
           return cli::enqueue_command(args, c);
         }));
       }});
}

}  // namespace

Result<McpScope> parse_mcp_scope(std::string_view text) {
  return parse_enum_name(text, kScopes, "--allow");
}

std::vector<McpTool> mcp_tools(const ApiRouter& router, const ApiSettings& settings,
                               const McpToolOptions& options) {
  std::vector<McpTool> tools;
  add_read_tools(tools, router, options);
  if (options.scope != McpScope::kRead) add_run_tools(tools, router, settings, options);
  if (options.scope == McpScope::kManage) add_manage_tools(tools, router, settings, options);
  return tools;
}

McpResources mcp_resources(const ApiRouter& router) {
  McpResources resources;
  resources.list = [&router] {
    json list = json::array();
    const json runs = parsed_body(ask(router, "GET", "/v1/runs", nullptr, {{"limit", "50"}}));
    if (!runs.is_array()) return list;
    for (const json& run : runs) {
      const std::string id = run.value("id", "");
      for (const char* stream : {"stdout", "stderr"}) {
        list.push_back({{"uri", "orrery://runs/" + id + "/" + stream},
                        {"name", "run " + id + " of " + run.value("loop_name", "") + ": " + stream},
                        {"mimeType", "text/plain"}});
      }
    }
    return list;
  };
  resources.read = [&router](const std::string& uri) -> std::optional<json> {
    const std::string prefix = "orrery://runs/";
    if (uri.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
    const std::string rest = uri.substr(prefix.size());
    const size_t slash = rest.find('/');
    if (slash == std::string::npos || slash == 0) return std::nullopt;
    const std::string stream = rest.substr(slash + 1);
    if (stream != "stdout" && stream != "stderr") return std::nullopt;
    const HttpResponse log =
        ask(router, "GET", "/v1/runs/" + percent_encoded(rest.substr(0, slash)) + "/log", nullptr,
            {{"stream", stream}});
    if (log.status != 200) return std::nullopt;
    return json{
        {"uri", uri}, {"mimeType", "text/plain"}, {"text", parsed_body(log).value("text", "")}};
  };
  return resources;
}

}  // namespace orrery::server
