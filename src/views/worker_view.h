// The JSON documents of workers, their events and merge queue entries
// (docs/cli.md, "Workers and the merge queue"): one source for `worker ls|show
// --json` and `queue ls|show --json`. Fields may be added, never renamed.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "core/merge_entry.h"
#include "core/worker.h"

namespace orrery {

// {id, workflow_run_id, step_id, repo, branch, worktree_path, host, state,
// base_revision, base_branch, final_revision, lease_owner, lease_expires_at,
// heartbeat_at, hold_reason, failure_reason, changed_files, allowed_files,
// created_at, updated_at, finished_at}; with `events` (worker show)
// also events [{from_state, to_state, reason, payload, created_at}].
nlohmann::json worker_json(const Worker& worker);
nlohmann::json worker_json(const Worker& worker, const std::vector<WorkerEvent>& events);

// {id, worker_id, repo, target, state, priority, strategy, base_revision,
// parent_revision, candidate_revision, merge_commit, verify {command,
// exit_code, duration_ms, output_tail, tree}, reason, conflict_files,
// created_at, updated_at, finished_at}.
nlohmann::json merge_entry_json(const MergeEntry& entry);

// {repo, target, verify, strategy, updated_at}.
nlohmann::json queue_config_json(const QueueConfig& config);

}  // namespace orrery
