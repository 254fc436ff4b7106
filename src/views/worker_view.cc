#include "views/worker_view.h"

#include <nlohmann/json.hpp>

#include "views/json_fields.h"

namespace orrery {
namespace {

using nlohmann::json;

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

}  // namespace

json worker_json(const Worker& worker) { return worker_document(worker); }

json worker_json(const Worker& worker, const std::vector<WorkerEvent>& events) {
  json document = worker_document(worker);
  json list = json::array();
  for (const WorkerEvent& event : events) {
    list.push_back({{"sequence", event.sequence},
                    {"from_state", text_or_null(event.from_state)},
                    {"to_state", event.to_state},
                    {"reason", text_or_null(event.reason)},
                    {"payload", stored_json(event.payload_json)},
                    {"created_at", format_time(event.created_at)}});
  }
  document["events"] = std::move(list);
  return document;
}

json merge_entry_json(const MergeEntry& e) {
  json verify{{"command", text_or_null(e.verify.command)},
              {"exit_code", e.verify.exit_code ? json(*e.verify.exit_code) : json(nullptr)},
              {"duration_ms", e.verify.duration_ms ? json(*e.verify.duration_ms) : json(nullptr)},
              {"output_tail", text_or_null(e.verify.output_tail)},
              {"tree", text_or_null(e.verify.tree)}};
  return {{"id", e.id},
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
          {"conflict_files", stored_json(e.conflict_files_json)},
          {"created_at", format_time(e.created_at)},
          {"updated_at", format_time(e.updated_at)},
          {"finished_at", time_or_null(e.finished_at)}};
}

json queue_config_json(const QueueConfig& config) {
  return {{"repo", config.repo},
          {"target", text_or_null(config.target)},
          {"verify", text_or_null(config.verify)},
          {"strategy", merge_strategy_name(config.strategy)},
          {"updated_at", format_time(config.updated_at)}};
}

}  // namespace orrery
