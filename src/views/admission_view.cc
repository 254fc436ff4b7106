#include "views/admission_view.h"

#include "views/json_fields.h"

namespace orrery {

nlohmann::json route_json(const Route& route, const std::map<ItemStatus, std::int64_t>& counts) {
  nlohmann::json by_status = nlohmann::json::object();
  for (ItemStatus status : kItemStatuses) {
    auto found = counts.find(status);
    by_status[item_status_name(status)] = found == counts.end() ? 0 : found->second;
  }
  return nlohmann::json{{"id", route.id},
                        {"name", route.name},
                        {"description", route.description},
                        {"workflow",
                         {{"id", route.workflow_id},
                          {"name", route.workflow_name},
                          {"version", route.workflow_version}}},
                        {"status", route_status_name(route.status)},
                        {"max_running", route.max_running},
                        {"max_per_project", route.max_per_project},
                        {"max_per_group", route.max_per_group},
                        {"max_attempts", route.max_attempts},
                        {"retry_delay_ms", route.retry_delay_ms},
                        {"retry_backoff", backoff_name(route.retry_backoff)},
                        {"priority_aging_ms", route.priority_aging_ms},
                        {"cwd", route.cwd},
                        {"webhook_secret_env", route.webhook_secret_env},
                        {"counts", by_status},
                        {"created_at", format_time(route.created_at)},
                        {"updated_at", format_time(route.updated_at)}};
}

nlohmann::json item_json(const WorkItem& item, const std::string& waiting_on, TimeMs now) {
  const Invocation& call = item.invocation;
  const std::int64_t effective =
      item_is_waiting(item.status)
          ? effective_priority(item.priority, item.queued_at, now, item.priority_aging_ms)
          : item.priority;
  return nlohmann::json{{"id", item.id},
                        {"route_id", item.route_id},
                        {"route_name", item.route_name},
                        {"key", item.key},
                        {"status", item_status_name(item.status)},
                        {"priority", item.priority},
                        {"effective_priority", effective},
                        {"project", text_or_null(item.project)},
                        {"group", text_or_null(item.group)},
                        {"attempts", item.attempts},
                        {"max_attempts", item.max_attempts},
                        {"next_attempt_at", time_or_null(item.next_attempt_at)},
                        {"queued_at", format_time(item.queued_at)},
                        {"workflow_run_id", text_or_null(item.workflow_run_id)},
                        {"last_reason", text_or_null(item.last_reason)},
                        {"feedback", item.feedback_json.empty() ? nlohmann::json(nullptr)
                                                                : stored_json(item.feedback_json)},
                        {"waiting_on", text_or_null(waiting_on)},
                        {"invocation",
                         {{"id", call.id},
                          {"source",
                           {{"kind", text_or_null(call.source.kind)},
                            {"id", text_or_null(call.source.id)},
                            {"dedupe_key", text_or_null(call.source.dedupe_key)}}},
                          {"subject",
                           {{"kind", text_or_null(call.subject.kind)},
                            {"id", text_or_null(call.subject.id)},
                            {"path", text_or_null(call.subject.path)},
                            {"url", text_or_null(call.subject.url)}}},
                          {"intent", text_or_null(call.intent)},
                          {"scope", stored_json(call.scope_json)},
                          {"output_policy", stored_json(call.output_policy_json)}}},
                        {"input", stored_json(item.input_json)},
                        {"created_at", format_time(item.created_at)},
                        {"updated_at", format_time(item.updated_at)}};
}

}  // namespace orrery
