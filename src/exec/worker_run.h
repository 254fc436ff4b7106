// A step attempt in its worker's worktree (docs/workers.md, "A step in a
// worktree"): before the target starts, the worker is leased and its
// worktree made or taken up again; while it runs, the worker's lease is
// renewed with the claim's; when it ends, what it left is committed and the
// worker reported — or held, with the reason, so nothing in it is lost.
//
// Invariants: the target never starts in a worktree whose worker this
// attempt does not hold (`running`, its lease owner the attempt's dispatch
// id); a worktree is made only under <home>/worktrees/, from a base that
// core/git_names.h accepts; a failed attempt, a commit that fails and a
// change outside allowed_files all end with the worker on hold, never
// failed, so its worktree and branch stay; a worker that leaves `running`
// through another process (its lease expired) makes the heartbeat fail,
// which stops the target.
#pragma once

#include <optional>
#include <string>

#include "core/result.h"
#include "core/run.h"
#include "core/step_worktree.h"
#include "exec/git.h"
#include "store/claim_ledger.h"
#include "store/merge_queue.h"
#include "store/worker_book.h"
#include "store/worker_overlaps.h"

namespace orrery {

struct WorkerAttempt {
  std::string home;
  std::string workflow_name;
  std::string run_id;
  std::string step_id;
  std::string dispatch_id;
  int attempt = 1;
  int max_attempts = 1;
  DurationMs lease_ms = 0;
  std::string host;
  StepWorktree settings;
};

class WorkerRun {
 public:
  WorkerRun(WorkerBook& workers, MergeQueue& queue, WorkerOverlaps& overlaps, Git& git,
            WorkerAttempt attempt);

  // Leases the worker and readies its worktree; returns the directory the
  // target runs in: `step_cwd` itself when worktree is auto and the
  // directory is not in a git repository (note() says so), else the same
  // place inside the worktree. An error fails the attempt.
  Result<std::string> prepare(const std::string& step_cwd, TimeMs now);
  // Why the step did not run in a worktree ("" when it does).
  const std::string& note() const { return note_; }
  // Renews the worker's lease; a conflict means it was taken away.
  Status heartbeat(TimeMs now);
  // After the target: report the worker, or hold it. May turn a succeeded
  // outcome into a failed one (a commit that failed, files outside
  // allowed_files), saying why.
  void finish(RunOutcome& outcome, TimeMs now);
  // Whether finish() put a worker in the merge queue.
  bool enqueued() const { return enqueued_; }

 private:
  Result<Worker> find_or_create(const std::string& top, TimeMs now);
  Status lease(Worker& worker, TimeMs now);
  Status move(WorkerState to, const std::string& reason, TimeMs now);
  Status ready_worktree();
  void hold(const std::string& reason, TimeMs now);
  void report(RunOutcome& outcome, TimeMs now);
  void enqueue(TimeMs now);
  void warn_of_overlaps(const std::vector<std::string>& changed, TimeMs now);

  WorkerBook& workers_;
  MergeQueue& queue_;
  WorkerOverlaps& overlaps_;
  Git& git_;
  WorkerAttempt attempt_;
  std::optional<Worker> worker_;  // as this attempt last wrote it
  std::string note_;
  bool enqueued_ = false;
};

// What a worker's worktree holds once its step is done: HEAD (after
// committing what was left, with commit: auto) and the files changed since
// the base. A change outside allowed_files is a conflict listing the files.
struct WorkerResult {
  std::string head;
  std::vector<std::string> changed_files;
};
Result<WorkerResult> inspect_worktree(Git& git, const Worker& worker, const StepWorktree& settings,
                                      const std::string& message);
// The message of orrery's commit of what a step left.
std::string report_message(const std::string& workflow, const std::string& run_id,
                           const std::string& step_id);

// The merge queue entry of a reported worker: its target branch is the
// step's target_branch, else the queue's (`queue config --target`), else the
// branch its base came from; none of them is an error saying so.
Result<MergeEntry> merge_entry_for(MergeQueue& queue, const Worker& worker,
                                   const StepWorktree& settings);

// Where the step's directory is inside the worktree: `dir` relative to
// `top` put under `worktree` (`worktree` itself when dir is not under top).
std::string place_in_worktree(const std::string& dir, const std::string& top,
                              const std::string& worktree);

}  // namespace orrery
