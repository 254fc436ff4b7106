// /v1/loops: list, create, show, edit, delete, pause, resume, archive,
// trigger, next slots (docs/server.md, "Loops").
#include <nlohmann/json.hpp>

#include "cli/edit_command.h"
#include "cli/loop_commands.h"
#include "cli/run_commands.h"
#include "core/loop_spec_document.h"
#include "exec/launcher.h"
#include "exec/process_control.h"
#include "ops/trigger.h"
#include "server/api.h"
#include "server/api_parameters.h"
#include "server/api_response.h"
#include "server/command_call.h"
#include "server/ops_call.h"
#include "views/document_text.h"

namespace orrery::server {
namespace {

using cli::Context;

Result<cli::ListArgs> list_args(const HttpRequest& request) {
  cli::ListArgs args;
  auto all = flag_parameter(request, "all");
  if (!all) return all.error();
  auto archived = flag_parameter(request, "archived");
  if (!archived) return archived.error();
  auto status = text_parameter(request, "status");
  if (!status) return status.error();
  auto limit = number_parameter(request, "limit", 1000, 1, 10'000);
  if (!limit) return limit.error();
  auto offset = cursor_offset(request);
  if (!offset) return offset.error();
  args.all = *all;
  args.archived = *archived;
  args.status = *status;
  args.limit = *limit;
  args.offset = *offset;
  return args;
}

HttpResponse list(const ApiSettings& settings, const HttpRequest& request) {
  auto args = list_args(request);
  if (!args) return error_response(args.error());
  return call_listing(
      settings.globals, [&](const Context& c) { return cli::list_loops(*args, c); }, request);
}

HttpResponse create(const ApiSettings& settings, const HttpRequest& request) {
  auto body = json_body(request);
  if (!body) return error_response(body.error());
  auto spec = loop_spec_from_document(*body, SpecUse::kCreate);
  if (!spec) return error_response(spec.error());
  return call_command(
      settings.globals, [&](const Context& c) { return cli::add_loop(*spec, c); }, 201);
}

HttpResponse edit(const ApiSettings& settings, const HttpRequest& request,
                  const std::string& loop) {
  auto body = json_body(request);
  if (!body) return error_response(body.error());
  auto spec = loop_spec_from_document(*body, SpecUse::kEdit);
  if (!spec) return error_response(spec.error());
  cli::EditArgs args{loop, std::move(*spec)};
  return call_command(settings.globals,
                      [&](const Context& c) { return cli::edit_loop_command(args, c); });
}

// What the run a trigger made is: its id and, for a run not started here,
// its status — what `orrery trigger --json` prints.
nlohmann::json triggered_document(const ops::Triggered& triggered) {
  nlohmann::json document{{"run_id", triggered.run.id}};
  switch (triggered.outcome) {
    case ops::TriggerOutcome::kQueued:
      document["status"] = "queued";
      document["behind"] = triggered.behind;
      break;
    case ops::TriggerOutcome::kLeftToRunners:
      document["status"] = "pending";
      break;
    case ops::TriggerOutcome::kStarted:
    case ops::TriggerOutcome::kUnstarted:
      break;
  }
  return document;
}

HttpResponse trigger(const ApiSettings& settings, const HttpRequest& request,
                     const std::string& loop) {
  auto body = json_body(request);
  if (!body) return error_response(body.error());
  ops::TriggerRequest wanted;
  wanted.loop = loop;
  for (const auto& [key, value] : body->items()) {
    if ((key != "force" && key != "here") || !value.is_boolean()) {
      return error_response(
          usage_error("the trigger body takes {\"force\": true|false, "
                      "\"here\": true|false}; got the key '" +
                      key + "'"));
    }
    (key == "force" ? wanted.force : wanted.here) = value.get<bool>();
  }
  return call_writing(settings.globals, [&](const cli::OpenedStore& opened, TimeMs now) {
    Store& store = *opened.store;
    SupervisorLauncher launcher(store, {opened.home, settings.globals.db});
    ProcessControl& processes = system_processes();
    const ops::TriggerContext context{
        store,    opened.home, opened.database_path.empty(),
        launcher, processes,   ops::trigger_claimant(processes.host_name()),
        now};
    auto triggered = ops::trigger_loop(context, wanted);
    if (!triggered) return Result<HttpResponse>(triggered.error());
    return Result<HttpResponse>(
        json_response(202, json_text(triggered_document(*triggered)) + "\n"));
  });
}

HttpResponse next(const ApiSettings& settings, const HttpRequest& request,
                  const std::string& loop) {
  cli::LoopArgs args;
  args.loop = loop;
  auto count = number_parameter(request, "n", 5, 1, 1000);
  if (!count) return error_response(count.error());
  auto from = text_parameter(request, "from");
  auto tz = text_parameter(request, "tz");
  if (!from) return error_response(from.error());
  if (!tz) return error_response(tz.error());
  args.count = *count;
  args.from = *from;
  args.tz = *tz;
  return call_command(settings.globals, [&](const Context& c) { return cli::next_slots(args, c); });
}

// A POST /v1/loops/{loop}/ACTION answered by a command taking the loop.
void add_action(ApiRouter& router, const ApiSettings& settings, const std::string& action,
                Result<int> (*command)(const cli::LoopArgs&, const Context&)) {
  router.add("POST", "/v1/loops/{loop}/" + action,
             [&settings, command](const HttpRequest&, const PathValues& path) {
               cli::LoopArgs args;
               args.loop = path.at("loop");
               return call_command(settings.globals,
                                   [&](const Context& c) { return command(args, c); });
             });
}

}  // namespace

void add_loop_routes(ApiRouter& router, const ApiSettings& settings) {
  router.add("GET", "/v1/loops",
             [&settings](const HttpRequest& r, const PathValues&) { return list(settings, r); });
  router.add("POST", "/v1/loops",
             [&settings](const HttpRequest& r, const PathValues&) { return create(settings, r); });
  router.add("GET", "/v1/loops/{loop}", [&settings](const HttpRequest&, const PathValues& path) {
    cli::LoopArgs args;
    args.loop = path.at("loop");
    return call_command(settings.globals,
                        [&](const Context& c) { return cli::show_loop(args, c); });
  });
  router.add("PATCH", "/v1/loops/{loop}",
             [&settings](const HttpRequest& r, const PathValues& path) {
               return edit(settings, r, path.at("loop"));
             });
  router.add("DELETE", "/v1/loops/{loop}", [&settings](const HttpRequest&, const PathValues& path) {
    cli::LoopArgs args;
    args.loop = path.at("loop");
    return call_command(settings.globals,
                        [&](const Context& c) { return cli::remove_loop(args, c); });
  });
  add_action(router, settings, "pause", cli::pause_loop_command);
  add_action(router, settings, "resume", cli::resume_loop_command);
  add_action(router, settings, "archive", cli::archive_loop_command);
  add_action(router, settings, "unarchive", cli::unarchive_loop_command);
  router.add("POST", "/v1/loops/{loop}/trigger",
             [&settings](const HttpRequest& r, const PathValues& path) {
               return trigger(settings, r, path.at("loop"));
             });
  router.add("GET", "/v1/loops/{loop}/next",
             [&settings](const HttpRequest& r, const PathValues& path) {
               return next(settings, r, path.at("loop"));
             });
}

}  // namespace orrery::server
