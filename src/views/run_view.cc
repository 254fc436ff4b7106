#include "views/run_view.h"

#include "views/json_fields.h"

namespace orrery {

nlohmann::json run_json(const Run& run, bool with_output) {
  nlohmann::json usage{{"input_tokens", value_or_null(run.usage.input_tokens)},
                       {"output_tokens", value_or_null(run.usage.output_tokens)},
                       {"cost_usd", value_or_null(run.usage.cost_usd)}};
  nlohmann::json json{
      {"id", run.id},
      {"loop_id", run.loop_id},
      {"loop_name", run.loop_name},
      {"scheduled_for", format_time(run.scheduled_for)},
      {"attempt", run.attempt},
      {"status", run_status_name(run.status)},
      {"started_at", time_or_null(run.started_at)},
      {"finished_at", time_or_null(run.finished_at)},
      {"exit_code", value_or_null(run.exit_code)},
      {"signal", value_or_null(run.signal)},
      {"duration_ms", value_or_null(run.duration_ms)},
      {"error", run.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.error)},
      {"skip_reason",
       run.skip_reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.skip_reason)},
      {"pid", run.target ? nlohmann::json(run.target->pid) : nlohmann::json(nullptr)},
      {"supervisor_pid",
       run.supervisor ? nlohmann::json(run.supervisor->pid) : nlohmann::json(nullptr)},
      {"host", run.host.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.host)},
      {"claimed_by",
       run.claimed_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.claimed_by)},
      {"usage", usage},
      {"usage_limited", run.usage_limited},
      {"created_at", format_time(run.created_at)},
      {"updated_at", format_time(run.updated_at)}};
  if (with_output) {
    json["stdout"] = run.stdout_tail;
    json["stderr"] = run.stderr_tail;
  }
  return json;
}

nlohmann::json feed_json(const RunFeed& feed) {
  nlohmann::json invalid_lines = nlohmann::json::array();
  for (const InvalidLine& line : feed.invalid_lines) {
    invalid_lines.push_back({{"line", line.line}, {"error", line.error}});
  }
  return {{"route_id", feed.route_id},
          {"route_name", text_or_null(feed.route_name)},
          {"status", feed_status_name(feed.status)},
          {"created", feed.created},
          {"refreshed", feed.refreshed},
          {"duplicate", feed.duplicate},
          {"invalid", feed.invalid},
          {"invalid_lines", invalid_lines},
          {"error", text_or_null(feed.error)},
          {"fed_at", time_or_null(feed.fed_at)}};
}

nlohmann::json run_document_json(const Run& run, const RunLinks& links, bool with_output) {
  nlohmann::json document = run_json(run, with_output);
  document["workflow_run_id"] = text_or_null(links.workflow_run_id);
  document["feed"] = links.feed ? feed_json(*links.feed) : nlohmann::json(nullptr);
  return document;
}

}  // namespace orrery
