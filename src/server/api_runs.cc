// /v1/runs: list with the CLI's filters, show, a log's byte range, cancel
// (docs/server.md, "Runs").
#include <nlohmann/json.hpp>

#include "cli/run_commands.h"
#include "core/limits.h"
#include "ops/runs.h"
#include "server/api.h"
#include "server/api_parameters.h"
#include "server/api_response.h"
#include "server/command_call.h"
#include "server/ops_call.h"
#include "views/document_text.h"
#include "views/run_view.h"

namespace orrery::server {
namespace {

using cli::Context;

Result<ops::RunQuery> run_query(const HttpRequest& request) {
  ops::RunQuery query;
  auto loop = text_parameter(request, "loop");
  if (!loop) return loop.error();
  auto status = text_parameter(request, "status");
  if (!status) return status.error();
  auto limit = number_parameter(request, "limit", 100, 1, ops::kMaxRunsPage);
  if (!limit) return limit.error();
  auto cursor = page_cursor(request);
  if (!cursor) return cursor.error();
  if (!status->empty()) {
    auto parsed = parse_run_status(*status);
    if (!parsed) return usage_error("--status: " + parsed.error().message);
    query.status = *parsed;
  }
  query.loop = *loop;
  query.page.limit = *limit;
  query.page.cursor = *cursor;
  return query;
}

// A page of run documents; the cursor of the next names its last run, so
// runs created while a client pages shift nothing (docs/server.md, "Pages").
HttpResponse list(const ApiSettings& settings, const HttpRequest& request) {
  auto query = run_query(request);
  if (!query) return error_response(query.error());
  return call_reading(settings.globals, [&](const cli::OpenedStore& opened, TimeMs) {
    Store& store = *opened.store;
    auto listed = ops::list_runs(store, store, store, *query);
    if (!listed) return Result<HttpResponse>(listed.error());
    nlohmann::json array = nlohmann::json::array();
    for (const Run& run : listed->page.rows) {
      array.push_back(run_document_json(run, ops::run_links(store, store, run.id), false));
    }
    HttpResponse response = json_response(200, json_text(array) + "\n");
    add_next_page(response, request, listed->page.next_cursor);
    return Result<HttpResponse>(std::move(response));
  });
}

HttpResponse log(const ApiSettings& settings, const HttpRequest& request, const std::string& run) {
  cli::RunArgs args;
  args.run = run;
  auto stream = text_parameter(request, "stream");
  if (!stream) return error_response(stream.error());
  if (!stream->empty() && *stream != "stdout" && *stream != "stderr") {
    return error_response(usage_error("stream=" + *stream + ": expected stdout or stderr"));
  }
  args.stderr_stream = *stream == "stderr";
  auto offset = number_parameter(request, "offset", 0, 0, INT32_MAX);
  if (!offset) return error_response(offset.error());
  auto length =
      number_parameter(request, "length", int(kMaxLogRangeBytes), 0, int(kMaxLogRangeBytes));
  if (!length) return error_response(length.error());
  args.log_offset = *offset;
  args.log_length = *length;
  return call_command(settings.globals, [&](const Context& c) { return cli::show_logs(args, c); });
}

HttpResponse cancel(const ApiSettings& settings, const HttpRequest& request,
                    const std::string& run) {
  auto body = json_body(request);
  if (!body) return error_response(body.error());
  cli::RunArgs args;
  args.run = run;
  for (const auto& [key, value] : body->items()) {
    if (key != "reason" || !value.is_string()) {
      return error_response(
          usage_error("the cancel body takes {\"reason\": TEXT}; got the key '" + key + "'"));
    }
    args.reason = value.get<std::string>();
  }
  return call_command(settings.globals,
                      [&](const Context& c) { return cli::cancel_run_command(args, c); });
}

}  // namespace

void add_run_routes(ApiRouter& router, const ApiSettings& settings) {
  router.add("GET", "/v1/runs",
             [&settings](const HttpRequest& r, const PathValues&) { return list(settings, r); });
  router.add("GET", "/v1/runs/{run}", [&settings](const HttpRequest&, const PathValues& path) {
    cli::RunArgs args;
    args.run = path.at("run");
    return call_command(settings.globals, [&](const Context& c) { return cli::show_run(args, c); });
  });
  router.add("GET", "/v1/runs/{run}/log",
             [&settings](const HttpRequest& r, const PathValues& path) {
               return log(settings, r, path.at("run"));
             });
  router.add("POST", "/v1/runs/{run}/cancel",
             [&settings](const HttpRequest& r, const PathValues& path) {
               return cancel(settings, r, path.at("run"));
             });
}

}  // namespace orrery::server
