// /v1/workflows and /v1/workflow-runs: list, show, create a version, run,
// runs, a run, its events, cancel (docs/server.md, "Workflows").
#include <nlohmann/json.hpp>

#include "cli/workflow_commands.h"
#include "core/exact_json.h"
#include "server/api.h"
#include "server/api_parameters.h"
#include "server/api_response.h"
#include "server/command_call.h"

namespace orrery::server {
namespace {

using cli::Context;
using WorkflowCommand = Result<int> (*)(const cli::WorkflowArgs&, const Context&);

HttpResponse answer(const ApiSettings& settings, const cli::WorkflowArgs& args,
                    WorkflowCommand command, int status = 200) {
  return call_command(
      settings.globals, [&](const Context& c) { return command(args, c); }, status);
}

// {input, idempotency_key, max_parallel, version}
Status read_run_body(const HttpRequest& request, cli::WorkflowArgs& args) {
  auto body = json_body(request);
  if (!body) return body.error();
  for (const auto& [key, value] : body->items()) {
    if (key == "input" && value.is_object()) {
      args.input = write_json(value);
    } else if (key == "idempotency_key" && value.is_string()) {
      args.idempotency_key = value.get<std::string>();
    } else if ((key == "max_parallel" || key == "version") && value.is_number_integer() &&
               value >= 0 && value <= 1'000'000) {
      if (key == "version") {
        args.version = value.get<int>();
      } else {
        args.max_parallel = value.get<int>();
      }
    } else {
      return usage_error(
          "a workflow run's body takes {\"input\": OBJECT, \"idempotency_key\": TEXT, "
          "\"max_parallel\": N, \"version\": N}; the key '" +
          key + "' is not one of them or has the wrong type");
    }
  }
  return Ok{};
}

HttpResponse list_runs(const ApiSettings& settings, const HttpRequest& request,
                       const std::string& workflow) {
  cli::WorkflowArgs args;
  args.workflow = workflow;
  auto status = text_parameter(request, "status");
  if (!status) return error_response(status.error());
  auto limit = number_parameter(request, "limit", 100, 1, 10'000);
  if (!limit) return error_response(limit.error());
  auto offset = cursor_offset(request);
  if (!offset) return error_response(offset.error());
  args.status = *status;
  args.limit = *limit;
  args.offset = *offset;
  return call_listing(
      settings.globals, [&](const Context& c) { return cli::list_workflow_runs_command(args, c); },
      request);
}

void add_workflow_paths(ApiRouter& router, const ApiSettings& settings) {
  router.add("GET", "/v1/workflows", [&settings](const HttpRequest& r, const PathValues&) {
    cli::WorkflowArgs args;
    auto all = flag_parameter(r, "all");
    if (!all) return error_response(all.error());
    args.all_versions = *all;
    return answer(settings, args, cli::list_workflows_command);
  });
  router.add("POST", "/v1/workflows", [&settings](const HttpRequest& r, const PathValues&) {
    cli::WorkflowArgs args;
    args.text = r.body;
    return answer(settings, args, cli::create_workflow_command, 201);
  });
  router.add("GET", "/v1/workflows/{workflow}",
             [&settings](const HttpRequest& r, const PathValues& path) {
               cli::WorkflowArgs args;
               args.workflow = path.at("workflow");
               if (r.parameter("version") != nullptr) {
                 auto version = number_parameter(r, "version", 1, 1, INT32_MAX);
                 if (!version) return error_response(version.error());
                 args.version = *version;
               }
               return answer(settings, args, cli::show_workflow_command);
             });
  router.add("POST", "/v1/workflows/{workflow}/runs",
             [&settings](const HttpRequest& r, const PathValues& path) {
               cli::WorkflowArgs args;
               args.workflow = path.at("workflow");
               if (auto read = read_run_body(r, args); !read) return error_response(read.error());
               return answer(settings, args, cli::run_workflow_command, 202);
             });
  router.add("GET", "/v1/workflows/{workflow}/runs",
             [&settings](const HttpRequest& r, const PathValues& path) {
               return list_runs(settings, r, path.at("workflow"));
             });
}

void add_workflow_run_paths(ApiRouter& router, const ApiSettings& settings) {
  router.add("GET", "/v1/workflow-runs", [&settings](const HttpRequest& r, const PathValues&) {
    auto workflow = text_parameter(r, "workflow");
    if (!workflow) return error_response(workflow.error());
    return list_runs(settings, r, *workflow);
  });
  const std::pair<const char*, WorkflowCommand> reads[] = {
      {"/v1/workflow-runs/{run}", cli::show_workflow_run_command},
      {"/v1/workflow-runs/{run}/events", cli::workflow_events_command}};
  for (const auto& [pattern, command] : reads) {
    router.add("GET", pattern, [&settings, command](const HttpRequest&, const PathValues& path) {
      cli::WorkflowArgs args;
      args.run = path.at("run");
      return answer(settings, args, command);
    });
  }
  router.add("POST", "/v1/workflow-runs/{run}/cancel",
             [&settings](const HttpRequest&, const PathValues& path) {
               cli::WorkflowArgs args;
               args.run = path.at("run");
               return answer(settings, args, cli::cancel_workflow_run_command);
             });
}

}  // namespace

void add_workflow_routes(ApiRouter& router, const ApiSettings& settings) {
  add_workflow_paths(router, settings);
  add_workflow_run_paths(router, settings);
}

}  // namespace orrery::server
