#include "exec/worker_recovery.h"

#include <filesystem>

namespace orrery {
namespace {

// Why the worker's holder is gone, or "" while it may still be there.
Result<std::string> stranded_because(Store& store, const ProcessProbe& processes,
                                     const Worker& worker, TimeMs now) {
  if (worker.state != WorkerState::kLeased && worker.state != WorkerState::kStarting &&
      worker.state != WorkerState::kRunning)
    return std::string();
  if (worker.lease_expires_at && *worker.lease_expires_at <= now) {
    return "its lease expired: " + worker.lease_owner + " stopped renewing it";
  }
  if (worker.host != processes.host_name()) return std::string();
  auto attempt = store.get_step_attempt(worker.lease_owner);
  if (!attempt) return attempt.error();
  if (!attempt->has_value() || !(*attempt)->supervisor) return std::string();
  if ((*attempt)->status == RunStatus::kRunning && processes.is_alive(*(*attempt)->supervisor))
    return std::string();
  return "the supervisor of " + worker.lease_owner + " is gone";
}

}  // namespace

Result<Worker> hold_if_stranded(Store& store, const ProcessProbe& processes, const Worker& worker,
                                TimeMs now) {
  auto why = stranded_because(store, processes, worker, now);
  if (!why) return why.error();
  if (why->empty()) return worker;
  WorkerChange change;
  change.worker_id = worker.id;
  change.from = worker.state;
  change.to = WorkerState::kHold;
  change.expected_owner = worker.lease_owner;
  const bool kept = std::filesystem::is_directory(worker.worktree_path);
  change.reason = *why + (kept ? "; inspect " + worker.worktree_path +
                                     ", then orrery worker resume " + worker.id + " (or discard)"
                               : "; its worktree " + worker.worktree_path +
                                     " is gone: orrery worker discard " + worker.id);
  auto held = store.change_worker(change, now);
  if (held) return held;
  if (held.error().code != ErrorCode::kConflict) return held.error();
  auto again = store.get_worker(worker.id);  // it moved on meanwhile
  if (!again) return again.error();
  return again->value_or(worker);
}

Result<int> hold_stranded_workers(Store& store, const ProcessProbe& processes, TimeMs now) {
  int held = 0;
  for (WorkerState state : {WorkerState::kLeased, WorkerState::kStarting, WorkerState::kRunning}) {
    WorkerFilter filter;
    filter.state = state;
    filter.limit = 10000;
    auto workers = store.list_workers(filter);
    if (!workers) return workers.error();
    for (const Worker& worker : *workers) {
      auto after = hold_if_stranded(store, processes, worker, now);
      if (!after) return after.error();
      if (after->state == WorkerState::kHold) ++held;
    }
  }
  return held;
}

}  // namespace orrery
