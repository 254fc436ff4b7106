#include "exec/worker_actions.h"

#include <algorithm>
#include <filesystem>

#include "exec/worker_recovery.h"
#include "exec/worker_run.h"

namespace orrery {
namespace {

constexpr DurationMs kResumeLeaseMs = 10 * 60 * 1000;

// hold → reported, with what the worktree holds now.
Result<WorkerChange> report_change(Git& git, const Worker& worker, const WorkerStep& step) {
  if (!std::filesystem::is_directory(worker.worktree_path)) {
    return not_found_error("worker " + worker.id + "'s worktree " + worker.worktree_path +
                           " is gone; orrery worker discard " + worker.id + " removes the rest");
  }
  auto result =
      inspect_worktree(git, worker, step.spec.worktree,
                       report_message(step.run.workflow_name, step.run.id, worker.step_id));
  if (!result) return result.error();
  WorkerChange change;
  change.worker_id = worker.id;
  change.from = WorkerState::kHold;
  change.to = WorkerState::kReported;
  change.final_revision = result->head;
  change.changed_files = result->changed_files;
  change.reason = "reported again by a person: " + std::to_string(result->changed_files.size()) +
                  " files changed";
  return change;
}

// Refuses to bring a change back into the queue once the work item its run
// served has settled that attempt (docs/fleet.md, "What is left behind"):
// the item's next attempt makes its own change, and both would land.
Status check_attempt_open(Store& store, const Worker& worker) {
  auto run = store.get_workflow_run(worker.workflow_run_id);
  if (!run) return run.error();
  if (!run->has_value() || (*run)->item_id.empty()) return Ok{};
  auto item = store.get_item((*run)->item_id);
  if (!item) return item.error();
  if (!item->has_value()) return Ok{};
  const WorkItem& served = **item;
  if (served.status == ItemStatus::kRunning && served.workflow_run_id == worker.workflow_run_id)
    return Ok{};
  return conflict_error(
      "worker " + worker.id + " made its change for work item " + served.id +
      ", which has settled that attempt (it is " + item_status_name(served.status) +
      "); its next attempt makes a change of its own (orrery item requeue " + served.id +
      " starts one once it rests). Discard this one with orrery "
      "worker discard " +
      worker.id);
}

}  // namespace

Result<std::optional<MergeEntry>> entry_of(Store& store, const Worker& worker) {
  MergeFilter filter;
  filter.repo = worker.repo;
  filter.worker_id = worker.id;
  filter.limit = 10000;
  auto entries = store.list_merge_entries(filter);
  if (!entries) return entries.error();
  for (const MergeEntry& entry : *entries) {
    if (entry.worker_id == worker.id) return std::optional<MergeEntry>(entry);
  }
  return std::optional<MergeEntry>();
}

Result<WorkerStep> step_of(Store& store, const Worker& worker) {
  auto run = store.get_workflow_run(worker.workflow_run_id);
  if (!run) return run.error();
  if (!run->has_value()) {
    return not_found_error("the workflow run " + worker.workflow_run_id + " of worker " +
                           worker.id + " is gone");
  }
  WorkerStep found;
  found.run = **run;
  auto workflow = store.get_workflow(found.run.workflow_id);
  if (!workflow) return workflow.error();
  if (!workflow->has_value())
    return not_found_error("the workflow of worker " + worker.id + " is gone");
  const auto& steps = (*workflow)->spec.steps;
  auto spec = std::find_if(steps.begin(), steps.end(),
                           [&](const WorkflowStep& step) { return step.id == worker.step_id; });
  if (spec == steps.end()) return not_found_error("the step of worker " + worker.id + " is gone");
  found.spec = *spec;
  auto runs = store.list_step_runs(found.run.id);
  if (!runs) return runs.error();
  for (const StepRun& step : *runs) {
    if (step.step_id == worker.step_id) found.step = step;
  }
  return found;
}

Result<Resumed> resume_worker(Store& store, Git& git, const Worker& worker, const std::string& who,
                              TimeMs now) {
  if (worker.state != WorkerState::kHold) {
    return conflict_error("worker " + worker.id + " is " + worker_state_name(worker.state) +
                          "; only a worker on hold is resumed");
  }
  auto step = step_of(store, worker);
  if (!step) return step.error();
  if (auto open = check_attempt_open(store, worker); !open) return open.error();
  if (step->step && step->step->status == StepStatus::kRunning) {
    WorkerChange change;
    change.worker_id = worker.id;
    change.from = WorkerState::kHold;
    change.to = WorkerState::kLeased;
    change.lease_owner = std::string(kResumeOwnerPrefix) + who;
    change.lease_ms = kResumeLeaseMs;
    change.reason = "resumed by " + who + ": the step runs again in its worktree";
    auto leased = store.change_worker(change, now);
    if (!leased) return leased.error();
    return Resumed::kRunsAgain;
  }
  auto entry = entry_of(store, worker);
  if (!entry) return entry.error();
  if (entry->has_value() &&
      ((*entry)->state == MergeState::kConflict || (*entry)->state == MergeState::kRejected)) {
    auto retried = retry_entry(store, git, **entry, now);
    if (!retried) return retried.error();
    return Resumed::kQueued;
  }
  auto change = report_change(git, worker, *step);
  if (!change) return change.error();
  auto reported = store.change_worker(*change, now);
  if (!reported) return reported.error();
  if (step->spec.worktree.merge != MergeMode::kQueue || entry->has_value())
    return Resumed::kReported;
  auto queued = enqueue_worker(store, *reported, now);
  if (!queued) return queued.error();
  return Resumed::kQueued;
}

namespace {

// Cancels a worker that no step or queue holds, with `reason`; an entry of
// it still waiting or in conflict is rejected in the same transaction.
Status cancel_worker(Store& store, const Worker& worker, const std::string& reason,
                     const std::string& entry_reason, TimeMs now) {
  if (is_final(worker.state)) return Ok{};
  auto entry = entry_of(store, worker);
  if (!entry) return entry.error();
  WorkerChange change;
  change.worker_id = worker.id;
  change.from = worker.state;
  change.to = WorkerState::kCancelled;
  change.reason = reason;
  const bool open_entry = entry->has_value() && ((*entry)->state == MergeState::kWaiting ||
                                                 (*entry)->state == MergeState::kConflict);
  if (open_entry) {
    MergeChange drop;
    drop.entry_id = (*entry)->id;
    drop.from = (*entry)->state;
    drop.to = MergeState::kRejected;
    drop.reason = entry_reason;
    drop.worker = change;
    if (auto dropped = store.change_merge_entry(drop, now); !dropped) return dropped.error();
    return Ok{};
  }
  if (auto cancelled = store.change_worker(change, now); !cancelled) return cancelled.error();
  return Ok{};
}

}  // namespace

Result<Discarded> discard_worker(Store& store, Git& git, const Worker& worker, TimeMs now) {
  if (std::string refusal = discard_refusal(worker); !refusal.empty()) {
    return conflict_error(refusal);
  }
  if (auto cancelled =
          cancel_worker(store, worker, "discarded by a person", "its worker was discarded", now);
      !cancelled) {
    return cancelled.error();
  }
  Discarded discarded;
  auto removed = git.remove_worktree_of(worker.repo, worker.worktree_path, worker.branch);
  if (!removed) return removed.error();
  discarded.worktree =
      *removed ? "removed"
      : !std::filesystem::exists(worker.worktree_path)
          ? "already gone"
          : "kept: it is not the worktree of branch " + worker.branch + " any more";
  const Status deleted = git.delete_branch_at(worker.repo, worker.branch, recorded_tip(worker));
  if (!deleted) {
    if (deleted.error().code != ErrorCode::kConflict) return deleted.error();
    discarded.branch_kept = deleted.error().message;
  }
  return discarded;
}

Status release_worker(Store& store, Git& git, const Worker& worker, const std::string& reason,
                      TimeMs now) {
  if (worker.state != WorkerState::kHold) {
    return conflict_error("worker " + worker.id + " is " + worker_state_name(worker.state) +
                          "; only a worker on hold is released");
  }
  if (auto cancelled = cancel_worker(store, worker, reason, reason, now); !cancelled)
    return cancelled;
  auto removed = remove_finished_worktree(git, worker);
  if (!removed) return removed.error();
  return Ok{};
}

Result<std::string> remove_finished_worktree(Git& git, const Worker& worker) {
  if (std::filesystem::is_directory(worker.worktree_path)) {
    auto uncommitted = git.uncommitted_files(worker.worktree_path);
    if (!uncommitted) {
      return "kept: what it holds cannot be read (" + uncommitted.error().message + ")";
    }
    if (!uncommitted->empty()) {
      std::string kept = "kept: it holds ";
      kept += std::to_string(uncommitted->size());
      return kept + " uncommitted file(s), e.g. " + uncommitted->front() +
             "; orrery worker discard " + worker.id + " removes it";
    }
  }
  auto removed = git.remove_worktree_of(worker.repo, worker.worktree_path, worker.branch);
  if (!removed) return removed.error();
  if (*removed) return std::string("removed");
  if (!std::filesystem::exists(worker.worktree_path)) return std::string("already gone");
  return "kept: it is not the worktree of branch " + worker.branch + " any more";
}

Result<MergeEntry> enqueue_worker(Store& store, const Worker& worker, TimeMs now) {
  if (worker.state != WorkerState::kReported) {
    return conflict_error("worker " + worker.id + " is " + worker_state_name(worker.state) +
                          "; only a reported worker enters the merge queue");
  }
  auto step = step_of(store, worker);
  if (!step) return step.error();
  if (auto open = check_attempt_open(store, worker); !open) return open.error();
  auto entry = merge_entry_for(store, worker, step->spec.worktree);
  if (!entry) return entry.error();
  return store.enqueue_merge(*entry, now);
}

Result<MergeEntry> retry_entry(Store& store, Git& git, const MergeEntry& entry, TimeMs now) {
  if (entry.state != MergeState::kConflict && entry.state != MergeState::kRejected) {
    return conflict_error("queue entry " + entry.id + " is " + merge_state_name(entry.state) +
                          "; only a conflict or a rejected entry is retried");
  }
  auto worker = store.get_worker(entry.worker_id);
  if (!worker) return worker.error();
  if (!worker->has_value()) return not_found_error("the worker of entry " + entry.id + " is gone");
  if (auto open = check_attempt_open(store, **worker); !open) return open.error();
  MergeChange change;
  change.entry_id = entry.id;
  change.from = entry.state;
  change.to = MergeState::kWaiting;
  change.reason = "retried by a person";
  if ((*worker)->state == WorkerState::kHold) {
    auto step = step_of(store, **worker);
    if (!step) return step.error();
    auto report = report_change(git, **worker, *step);
    if (!report) return report.error();
    change.worker = *report;
    change.candidate_revision = report->final_revision;
  } else if ((*worker)->state == WorkerState::kReported) {
    change.candidate_revision = (*worker)->final_revision;
  } else {
    return conflict_error("the worker of entry " + entry.id + " is " +
                          worker_state_name((*worker)->state) +
                          "; it cannot enter the queue again");
  }
  return store.change_merge_entry(change, now);
}

Result<MergeEntry> drop_entry(Store& store, const MergeEntry& entry, TimeMs now,
                              const std::string& reason) {
  if (entry.state != MergeState::kWaiting && entry.state != MergeState::kConflict) {
    return conflict_error("queue entry " + entry.id + " is " + merge_state_name(entry.state) +
                          "; only a waiting or a conflict entry is dropped");
  }
  MergeChange change;
  change.entry_id = entry.id;
  change.from = entry.state;
  change.to = MergeState::kRejected;
  change.reason = reason;
  auto worker = store.get_worker(entry.worker_id);
  if (!worker) return worker.error();
  if (worker->has_value() && (*worker)->state == WorkerState::kReported) {
    WorkerChange hold;
    hold.worker_id = (*worker)->id;
    hold.from = WorkerState::kReported;
    hold.to = WorkerState::kHold;
    hold.reason = change.reason + " (entry " + entry.id + ")";
    change.worker = hold;
  }
  return store.change_merge_entry(change, now);
}

}  // namespace orrery
