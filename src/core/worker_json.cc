#include "core/worker_json.h"

#include <nlohmann/json.hpp>

#include "core/exact_json.h"
#include "core/time.h"

namespace orrery {
namespace {

using nlohmann::json;

json text_or_null(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

json time_or_null(const std::optional<TimeMs>& time) {
  return time ? json(format_time(*time)) : json(nullptr);
}

std::string dumped(const json& document) { return write_json(document); }

json worker_document(const Worker& w) {
  return {{"id", w.id},
          {"workflow_run_id", w.workflow_run_id},
          {"step_id", w.step_id},
          {"repo", w.repo},
          {"branch", w.branch},
          {"worktree_path", w.worktree_path},
          {"host", w.host},
          {"state", worker_state_name(w.state)},
          {"base_revision", w.base_revision},
          {"base_branch", text_or_null(w.base_branch)},
          {"final_revision", text_or_null(w.final_revision)},
          {"lease_owner", text_or_null(w.lease_owner)},
          {"lease_expires_at", time_or_null(w.lease_expires_at)},
          {"heartbeat_at", time_or_null(w.heartbeat_at)},
          {"hold_reason", text_or_null(w.hold_reason)},
          {"failure_reason", text_or_null(w.failure_reason)},
          {"changed_files", w.changed_files},
          {"allowed_files", w.allowed_files},
          {"created_at", format_time(w.created_at)},
          {"updated_at", format_time(w.updated_at)},
          {"finished_at", time_or_null(w.finished_at)}};
}

json embedded(const std::string& text) {
  json parsed = read_json(text);
  return parsed.is_discarded() ? json(text) : parsed;
}

}  // namespace

std::string worker_json(const Worker& worker) { return dumped(worker_document(worker)); }

std::string worker_json(const Worker& worker, const std::vector<WorkerEvent>& events) {
  json document = worker_document(worker);
  json list = json::array();
  for (const WorkerEvent& event : events) {
    list.push_back({{"sequence", event.sequence},
                    {"from_state", text_or_null(event.from_state)},
                    {"to_state", event.to_state},
                    {"reason", text_or_null(event.reason)},
                    {"payload", embedded(event.payload_json)},
                    {"created_at", format_time(event.created_at)}});
  }
  document["events"] = std::move(list);
  return dumped(document);
}

std::string merge_entry_json(const MergeEntry& e) {
  json verify{{"command", text_or_null(e.verify.command)},
              {"exit_code", e.verify.exit_code ? json(*e.verify.exit_code) : json(nullptr)},
              {"duration_ms", e.verify.duration_ms ? json(*e.verify.duration_ms) : json(nullptr)},
              {"output_tail", text_or_null(e.verify.output_tail)},
              {"tree", text_or_null(e.verify.tree)}};
  return dumped({{"id", e.id},
                 {"worker_id", e.worker_id},
                 {"repo", e.repo},
                 {"target", e.target},
                 {"state", merge_state_name(e.state)},
                 {"priority", e.priority},
                 {"strategy", e.strategy ? json(merge_strategy_name(*e.strategy)) : json(nullptr)},
                 {"base_revision", e.base_revision},
                 {"parent_revision", text_or_null(e.parent_revision)},
                 {"candidate_revision", e.candidate_revision},
                 {"merge_commit", text_or_null(e.merge_commit)},
                 {"verify", std::move(verify)},
                 {"reason", text_or_null(e.reason)},
                 {"conflict_files", embedded(e.conflict_files_json)},
                 {"created_at", format_time(e.created_at)},
                 {"updated_at", format_time(e.updated_at)},
                 {"finished_at", time_or_null(e.finished_at)}});
}

std::string queue_config_json(const QueueConfig& config) {
  return dumped({{"repo", config.repo},
                 {"target", text_or_null(config.target)},
                 {"verify", text_or_null(config.verify)},
                 {"strategy", merge_strategy_name(config.strategy)},
                 {"updated_at", format_time(config.updated_at)}});
}

}  // namespace orrery
