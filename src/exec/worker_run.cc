#include "exec/worker_run.h"

#include <sys/stat.h>

#include <algorithm>
#include <iterator>

#include "core/git_names.h"
#include "core/path_glob.h"
#include "core/text.h"
#include "store/data_dir.h"
#include "store/home_layout.h"

namespace orrery {
namespace {

bool is_directory(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

std::string parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? "/" : path.substr(0, slash);
}

std::string joined_list(const std::vector<std::string>& items, size_t shown) {
  std::string text;
  for (size_t i = 0; i < items.size() && i < shown; ++i) text += (i ? ", " : "") + items[i];
  if (items.size() > shown) text += " and " + std::to_string(items.size() - shown) + " more";
  return text;
}

}  // namespace

std::string place_in_worktree(const std::string& dir, const std::string& top,
                              const std::string& worktree) {
  if (dir == top) return worktree;
  if (dir.size() > top.size() && dir.compare(0, top.size(), top) == 0 && dir[top.size()] == '/')
    return worktree + dir.substr(top.size());
  return worktree;
}

WorkerRun::WorkerRun(WorkerBook& workers, MergeQueue& queue, WorkerOverlaps& overlaps, Git& git,
                     WorkerAttempt attempt)
    : workers_(workers),
      queue_(queue),
      overlaps_(overlaps),
      git_(git),
      attempt_(std::move(attempt)) {}

Result<std::string> WorkerRun::prepare(const std::string& step_cwd, TimeMs now) {
  const StepWorktree& settings = attempt_.settings;
  const std::string dir = settings.repo.empty() ? step_cwd : settings.repo;
  if (!is_directory(dir)) {
    return not_found_error(std::string(settings.repo.empty() ? "the step's directory " : "repo ") +
                           dir + " does not exist");
  }
  auto top = git_.toplevel(dir);
  if (!top) return top.error();
  auto existing = workers_.find_worker(attempt_.run_id, attempt_.step_id);
  if (!existing) return existing.error();
  if (!existing->has_value() && !top->has_value()) {
    if (settings.mode == WorktreeMode::kRequired) {
      return usage_error("worktree: required, but " + dir +
                         " is not in a git repository; give the step a repo: inside one, or "
                         "worktree: auto to run it in the directory itself");
    }
    note_ = dir + " is not in a git repository; with worktree: auto the step runs there";
    return step_cwd;
  }
  Worker worker;
  if (existing->has_value()) {
    worker = **existing;
  } else {
    auto made = find_or_create(**top, now);
    if (!made) return made.error();
    worker = std::move(*made);
  }
  if (auto leased = lease(worker, now); !leased) return leased.error();
  if (auto ready = ready_worktree(); !ready) {
    hold("the worktree could not be made: " + ready.error().message, now);
    return ready.error();
  }
  if (auto running = move(WorkerState::kRunning, "", now); !running) return running.error();
  return place_in_worktree(dir, worker_->repo, worker_->worktree_path);
}

Result<Worker> WorkerRun::find_or_create(const std::string& top, TimeMs now) {
  const StepWorktree& settings = attempt_.settings;
  const std::string revision = settings.base.empty() ? "HEAD" : settings.base;
  auto base = git_.commit_of(top, revision);
  if (!base) {
    return Error{base.error().code, "base '" + visible(revision) + "': " + base.error().message};
  }
  std::string base_branch;
  if (settings.base.empty()) {
    auto branch = git_.current_branch(top);
    if (!branch) return branch.error();
    base_branch = *branch;
  } else if (check_branch_name(settings.base, "base").ok()) {
    auto exists = git_.branch_exists(top, settings.base);
    if (!exists) return exists.error();
    if (*exists) base_branch = settings.base;
  }
  Worker worker;
  worker.workflow_run_id = attempt_.run_id;
  worker.step_id = attempt_.step_id;
  worker.repo = top;
  worker.branch = worker_branch(attempt_.run_id, attempt_.step_id);
  worker.worktree_path = HomeLayout(attempt_.home).worktree(attempt_.run_id, attempt_.step_id);
  worker.host = attempt_.host;
  worker.base_revision = *base;
  worker.base_branch = base_branch;
  worker.allowed_files = settings.allowed_files;
  return workers_.create_worker(worker, now);
}

// Takes the worker for this attempt: from planned or hold (an earlier
// attempt's), or from leased (`worker resume` leased it for the next one).
Status WorkerRun::lease(Worker& worker, TimeMs now) {
  const std::string who = "worker " + worker.id;
  switch (worker.state) {
    case WorkerState::kPlanned:
    case WorkerState::kHold:
    case WorkerState::kLeased:
      break;
    case WorkerState::kStarting:
    case WorkerState::kRunning:
      return conflict_error(who + " is " + worker_state_name(worker.state) + ", held by " +
                            worker.lease_owner + "; once its lease expires it is put on hold, " +
                            "then orrery worker resume " + worker.id + " runs the step again");
    case WorkerState::kReported:
    case WorkerState::kVerifying:
    case WorkerState::kMergeReady:
    case WorkerState::kMerged:
      return conflict_error(who + " has reported its work already (" +
                            worker_state_name(worker.state) + ")");
    case WorkerState::kFailed:
    case WorkerState::kCancelled:
      return conflict_error(who + " is " + worker_state_name(worker.state) +
                            (worker.state == WorkerState::kCancelled ? " (discarded)" : "") +
                            "; the step has no worktree to run in");
  }
  worker_ = worker;
  if (worker.state != WorkerState::kLeased) {
    if (auto leased =
            move(WorkerState::kLeased, "attempt " + std::to_string(attempt_.attempt), now);
        !leased)
      return leased;
  }
  return move(WorkerState::kStarting, "", now);
}

Status WorkerRun::move(WorkerState to, const std::string& reason, TimeMs now) {
  WorkerChange change;
  change.worker_id = worker_->id;
  change.from = worker_->state;
  change.to = to;
  change.expected_owner = worker_->lease_owner;
  change.lease_owner = attempt_.dispatch_id;
  change.lease_ms = attempt_.lease_ms;
  change.reason = reason;
  change.payload_json = "{\"dispatch_id\":" + json_quote(attempt_.dispatch_id) + "}";
  auto changed = workers_.change_worker(change, now);
  if (!changed) return changed.error();
  worker_ = std::move(*changed);
  return Ok{};
}

// The worktree as an earlier attempt left it, or a new one on the worker's
// branch (made from the base, or the branch itself when it exists).
Status WorkerRun::ready_worktree() {
  const Worker& worker = *worker_;
  if (is_directory(worker.worktree_path)) {
    auto inside = git_.toplevel(worker.worktree_path);
    if (!inside) return inside.error();
    if (inside->value_or("") == worker.worktree_path) return Ok{};
    return internal_error(worker.worktree_path +
                          " exists but is not the worker's worktree; move it away");
  }
  if (auto made = prepare_data_dir(parent_of(worker.worktree_path)); !made) return made;
  return git_.add_worktree(worker.repo, worker.worktree_path, worker.branch, worker.base_revision);
}

Status WorkerRun::heartbeat(TimeMs now) {
  if (!worker_ || worker_->state != WorkerState::kRunning) return Ok{};
  return workers_.heartbeat_worker(worker_->id, attempt_.dispatch_id, attempt_.lease_ms, now);
}

void WorkerRun::hold(const std::string& reason, TimeMs now) {
  if (!worker_ || !legal_worker_transition(worker_->state, WorkerState::kHold)) return;
  (void)move(WorkerState::kHold, reason, now);  // a hold that fails: the lease runs out instead
}

void WorkerRun::finish(RunOutcome& outcome, TimeMs now) {
  if (!worker_ || worker_->state != WorkerState::kRunning) return;
  if (outcome.status == RunStatus::kSucceeded) {
    report(outcome, now);
    return;
  }
  const bool retries = attempt_.attempt < attempt_.max_attempts;
  std::string reason = "attempt " + std::to_string(attempt_.attempt) + " " +
                       run_status_name(outcome.status) +
                       (outcome.error.empty() ? "" : ": " + outcome.error);
  reason += retries ? "; the next attempt resumes it"
                    : "; orrery worker resume " + worker_->id + " reports what it holds, " +
                          "orrery worker discard " + worker_->id + " removes it";
  hold(reason, now);
}

namespace {

// A commit: never step that left files no commit holds: its work would be
// lost by a merge (only commits merge) and by the worktree's removal.
Error uncommitted_error(const Worker& worker, const std::vector<std::string>& files) {
  std::string left = "commit: never, and the step left ";
  left += std::to_string(files.size());
  return conflict_error(left + " uncommitted " + (files.size() == 1 ? "file" : "files") + " (" +
                        joined_list(files, 20) +
                        "); orrery neither commits nor removes them: commit them in " +
                        worker.worktree_path + " (or remove them), then orrery worker resume " +
                        worker.id + "; orrery worker discard " + worker.id + " drops them");
}

}  // namespace

Result<WorkerResult> inspect_worktree(Git& git, const Worker& worker, const StepWorktree& settings,
                                      const std::string& message) {
  if (settings.commit == CommitMode::kAuto) {
    if (auto committed = git.commit_all(worker.worktree_path, message); !committed) {
      return Error{committed.error().code,
                   "what the step left could not be committed: " + committed.error().message};
    }
  } else {
    auto uncommitted = git.uncommitted_files(worker.worktree_path);
    if (!uncommitted) return uncommitted.error();
    if (!uncommitted->empty()) return uncommitted_error(worker, *uncommitted);
  }
  auto head = git.commit_of(worker.worktree_path, "HEAD");
  if (!head)
    return Error{head.error().code, "the worktree's HEAD cannot be read: " + head.error().message};
  auto changed = git.changed_files(worker.repo, worker.base_revision, *head);
  if (!changed) {
    return Error{changed.error().code,
                 "the changed files cannot be listed: " + changed.error().message};
  }
  if (!worker.allowed_files.empty()) {
    const std::vector<std::string> outside = files_outside(worker.allowed_files, *changed);
    if (!outside.empty())
      return conflict_error("changed files outside allowed_files: " + joined_list(outside, 20));
  }
  return WorkerResult{*head, *changed};
}

std::string report_message(const std::string& workflow, const std::string& run_id,
                           const std::string& step_id) {
  return "orrery: workflow " + workflow + ", run " + run_id + ", step " + step_id;
}

void WorkerRun::report(RunOutcome& outcome, TimeMs now) {
  const Worker& worker = *worker_;
  auto result =
      inspect_worktree(git_, worker, attempt_.settings,
                       report_message(attempt_.workflow_name, attempt_.run_id, attempt_.step_id));
  if (!result) {
    hold(result.error().message, now);
    outcome.status = RunStatus::kFailed;
    outcome.error = result.error().message + " (worker " + worker.id + " is on hold)";
    return;
  }
  WorkerChange change;
  change.worker_id = worker.id;
  change.from = WorkerState::kRunning;
  change.to = WorkerState::kReported;
  change.expected_owner = attempt_.dispatch_id;
  change.final_revision = result->head;
  change.changed_files = result->changed_files;
  change.reason = std::to_string(result->changed_files.size()) + " files changed";
  auto reported = workers_.change_worker(change, now);
  if (!reported) {
    outcome.status = RunStatus::kFailed;
    outcome.error = "worker " + worker.id + " could not be reported: " + reported.error().message;
    return;
  }
  worker_ = std::move(*reported);
  warn_of_overlaps(result->changed_files, now);
  if (attempt_.settings.merge == MergeMode::kQueue) enqueue(now);
}

// Before the worker goes to the queue: the other live workers of the
// repository that changed some of the same files (a running one's changes
// as its worktree holds them now) are named in both runs' journals. Best
// effort: a warning that cannot be made does not stop the report.
void WorkerRun::warn_of_overlaps(const std::vector<std::string>& changed, TimeMs now) {
  if (changed.empty()) return;
  WorkerFilter filter;
  filter.repo = worker_->repo;
  filter.limit = 1000;
  auto workers = workers_.list_workers(filter);
  if (!workers) return;
  for (const Worker& other : *workers) {
    if (other.id == worker_->id) continue;
    std::vector<std::string> theirs;
    if (other.state == WorkerState::kRunning) {
      auto now_changed = git_.worktree_changes(other.worktree_path, other.base_revision);
      if (!now_changed) continue;
      theirs = std::move(*now_changed);
    } else if (other.state == WorkerState::kReported || other.state == WorkerState::kVerifying ||
               other.state == WorkerState::kMergeReady) {
      theirs = other.changed_files;
    } else {
      continue;
    }
    std::vector<std::string> both;
    std::set_intersection(changed.begin(), changed.end(), theirs.begin(), theirs.end(),
                          std::back_inserter(both));
    if (both.empty()) continue;
    WorkerOverlap overlap{worker_->repo,    both,        worker_->workflow_run_id,
                          worker_->step_id, worker_->id, other.workflow_run_id,
                          other.step_id,    other.id};
    (void)overlaps_.note_overlap(overlap, now);
  }
}

void WorkerRun::enqueue(TimeMs now) {
  auto entry = merge_entry_for(queue_, *worker_, attempt_.settings);
  if (!entry) {
    hold(entry.error().message, now);
    return;
  }
  auto queued = queue_.enqueue_merge(*entry, now);
  if (!queued) {
    hold("it could not enter the merge queue: " + queued.error().message, now);
    return;
  }
  enqueued_ = true;
}

Result<MergeEntry> merge_entry_for(MergeQueue& queue, const Worker& worker,
                                   const StepWorktree& settings) {
  auto config = queue.queue_config(worker.repo);
  if (!config) return config.error();
  std::string target = settings.target_branch;
  if (target.empty() && config->has_value()) target = (*config)->target;
  if (target.empty()) target = worker.base_branch;
  if (target.empty()) {
    return usage_error(
        "no target branch for the merge queue: the base was not a branch; set "
        "target_branch on the step or orrery queue config " +
        worker.repo + " --target BRANCH");
  }
  MergeEntry entry;
  entry.worker_id = worker.id;
  entry.repo = worker.repo;
  entry.target = target;
  entry.base_revision = worker.base_revision;
  entry.candidate_revision = worker.final_revision;
  entry.verify.command = settings.verify;
  entry.strategy = settings.strategy;
  return entry;
}

}  // namespace orrery
