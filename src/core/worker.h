// Worker: one workflow step's isolated checkout — a git worktree on its own
// branch — and its life from the first attempt to the merge (docs/workers.md).
// The record the store keeps and the legal transitions of its state.
//
// Invariants: a worker belongs to exactly one (workflow run, step); merged,
// failed and cancelled are final and take no other state; every other
// change of state is one of kWorkerTransitions (check_worker_transition
// says which and why not); a worker in a leased state (leased, starting,
// running, verifying, merge_ready) has a lease owner and expiry, one in any
// other state has none; finished_at is set exactly when the state is final.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/time.h"

namespace orrery {

enum class WorkerState {
  kPlanned,
  kLeased,
  kStarting,
  kRunning,
  kReported,
  kVerifying,
  kMergeReady,
  kMerged,
  kHold,
  kFailed,
  kCancelled
};

const char* worker_state_name(WorkerState state);
Result<WorkerState> parse_worker_state(std::string_view text);
// merged, failed, cancelled.
bool is_final(WorkerState state);
// leased, starting, running (the step's supervisor holds it), verifying,
// merge_ready (the merge queue holds it).
bool is_leased(WorkerState state);
// Whether `from → to` is a legal transition.
bool legal_worker_transition(WorkerState from, WorkerState to);
// Ok when legal; otherwise a conflict naming both states and what `from`
// may become.
Status check_worker_transition(const std::string& worker_id, WorkerState from, WorkerState to);

// What the store keeps of a worker (docs/workers.md, "worker JSON").
struct Worker {
  std::string id;
  std::string workflow_run_id;
  std::string step_id;
  std::string repo;           // the repository's top-level directory
  std::string branch;         // orrery/<run-short>/<step>
  std::string worktree_path;  // under <home>/worktrees/
  std::string host;           // where the worktree is
  WorkerState state = WorkerState::kPlanned;
  std::string base_revision;
  std::string base_branch;     // the branch the base came from ("" if detached)
  std::string final_revision;  // set once reported
  std::string lease_owner;     // the attempt's dispatch id, or the queue's driver
  std::optional<TimeMs> lease_expires_at;
  std::optional<TimeMs> heartbeat_at;
  std::string hold_reason;
  std::string failure_reason;
  std::vector<std::string> changed_files;  // against the base, sorted
  std::vector<std::string> allowed_files;  // the step's globs
  TimeMs created_at = 0;
  TimeMs updated_at = 0;
  std::optional<TimeMs> finished_at;
};

// Why `worker discard` refuses the worker in its state, with what to do
// instead (docs/workers.md, "Resume, discard, retry"); empty when it may be
// discarded: planned, reported, hold, failed or cancelled. A worker some
// process holds (running its step, or verifying its change) and a merged
// one (its change is on the target) are refused.
std::string discard_refusal(const Worker& worker);

// The commit a worker's branch is at as far as orrery knows: the revision it
// reported, else the base it was made from. A branch anywhere else holds
// work orrery did not record, and is never deleted.
const std::string& recorded_tip(const Worker& worker);

// One appended transition (from_state empty for the first, `planned`).
struct WorkerEvent {
  std::string worker_id;
  std::int64_t sequence = 0;
  std::string from_state;
  std::string to_state;
  std::string reason;
  std::string payload_json = "{}";
  TimeMs created_at = 0;
};

}  // namespace orrery
