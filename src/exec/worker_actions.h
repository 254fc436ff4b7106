// What a person does to a worker or a merge queue entry (docs/workers.md,
// "Resume, discard, retry"): the logic of `worker resume | discard |
// enqueue` and `queue retry | drop`, over the store and git, so that the CLI
// only parses and prints.
//
// Invariants: every change goes through the store's guarded transitions
// (a worker that moved meanwhile is a conflict, nothing changes); a worker
// re-reported by a person is inspected as its step's end would have been
// (what is left committed, allowed_files checked) and the entry that brings
// it back to the queue changes in the same transaction; discarding removes
// the worktree and the branch only after the worker is cancelled, and again
// on a second discard, so nothing is left behind.
#pragma once

#include <optional>
#include <string>

#include "core/result.h"
#include "core/workflow.h"
#include "exec/git.h"
#include "store/store.h"

namespace orrery {

// The step a worker serves, as its workflow run has it.
struct WorkerStep {
  WorkflowRun run;
  std::optional<StepRun> step;  // nothing when the run's steps are gone
  WorkflowStep spec;            // the step of the run's workflow version
};
Result<WorkerStep> step_of(Store& store, const Worker& worker);
// The worker's merge entry, if it has one.
Result<std::optional<MergeEntry>> entry_of(Store& store, const Worker& worker);

enum class Resumed { kRunsAgain, kReported, kQueued };

// A held worker goes on: when its step is still running (its attempt's
// supervisor died), it is leased for the step's next attempt (`who` names
// the resumer); otherwise it is reported again — and back in the merge
// queue if its entry was there or its step says merge: queue.
Result<Resumed> resume_worker(Store& store, Git& git, const Worker& worker, const std::string& who,
                              TimeMs now);
// What discarding left of a worker's worktree and branch: each removed, or
// kept with why (not the worker's any more; work orrery did not record).
struct Discarded {
  std::string worktree;     // "removed", "already gone", or why it was kept
  std::string branch_kept;  // why the branch was kept (empty: deleted, or not there)
};
// Cancels the worker — refused, changing nothing, in a state that does not
// allow it (core/worker.h discard_refusal) — and removes its worktree while
// it is still the worktree of its branch, and its branch while it is still
// at the commit orrery recorded; an entry of it still waiting is rejected.
Result<Discarded> discard_worker(Store& store, Git& git, const Worker& worker, TimeMs now);
// Removes a worker's worktree for orrery's own reasons (merged, released):
// only while it is the worktree of the worker's branch and holds nothing
// uncommitted — orrery never removes work nobody committed. What happened:
// "removed", "already gone", or "kept: " and why.
Result<std::string> remove_finished_worktree(Git& git, const Worker& worker);
// A held worker whose work item has since succeeded on a later attempt
// (docs/fleet.md, "What is left behind"): cancelled with `reason`, an open
// entry of it rejected, its worktree removed unless it holds uncommitted
// changes; its branch is kept.
Status release_worker(Store& store, Git& git, const Worker& worker, const std::string& reason,
                      TimeMs now);
// Puts a reported worker in the merge queue.
Result<MergeEntry> enqueue_worker(Store& store, const Worker& worker, TimeMs now);
// A conflict or rejected entry back at the end of its queue, its worker
// re-reported first when it is on hold (the candidate is what its branch
// holds now).
Result<MergeEntry> retry_entry(Store& store, Git& git, const MergeEntry& entry, TimeMs now);
// A waiting or conflict entry out of the queue (rejected, "dropped"), its
// worker on hold.
Result<MergeEntry> drop_entry(Store& store, const MergeEntry& entry, TimeMs now,
                              const std::string& reason = "dropped from the queue by a person");

}  // namespace orrery
