// /v1/runs: list with the CLI's filters, show, a log's byte range, cancel
// (docs/server.md, "Runs").
#include <nlohmann/json.hpp>

#include "cli/run_commands.h"
#include "core/limits.h"
#include "server/api.h"
#include "server/api_parameters.h"
#include "server/api_response.h"
#include "server/command_call.h"

namespace orrery::server {
namespace {

using cli::Context;

Result<cli::RunsArgs> runs_args(const HttpRequest& request) {
  cli::RunsArgs args;
  auto loop = text_parameter(request, "loop");
  if (!loop) return loop.error();
  auto status = text_parameter(request, "status");
  if (!status) return status.error();
  auto limit = number_parameter(request, "limit", 100, 1, 10'000);
  if (!limit) return limit.error();
  auto offset = cursor_offset(request);
  if (!offset) return offset.error();
  args.loop = *loop;
  args.status = *status;
  args.limit = *limit;
  args.offset = *offset;
  return args;
}

HttpResponse list(const ApiSettings& settings, const HttpRequest& request) {
  auto args = runs_args(request);
  if (!args) return error_response(args.error());
  return call_listing(
      settings.globals, [&](const Context& c) { return cli::list_runs(*args, c); }, request);
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
