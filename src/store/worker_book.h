// WorkerBook: the workers a store holds (docs/workers.md): one per workflow
// run step that runs in a git worktree, its lease, and the append-only
// journal of its states.
//
// Invariants every backend keeps: a (workflow run, step) has at most one
// worker; a change of state is one guarded UPDATE (from the state as read,
// and from the lease owner the caller names) whose row count is checked,
// written in one transaction with its event; a change that is not legal
// (core/worker.h) or whose guard does not hold changes nothing and is a
// conflict naming the worker's state; worker_events is never updated or
// deleted (the database refuses it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "core/worker.h"

namespace orrery {

struct WorkerFilter {
  std::optional<WorkerState> state;
  std::string repo;             // "" : every repository
  std::string workflow_run_id;  // "" : every run
  int limit = 100;
  int offset = 0;
};

// One change of a worker's state, guarded by `from` and, when
// `expected_owner` is set, by the lease owner as read.
struct WorkerChange {
  std::string worker_id;
  WorkerState from = WorkerState::kPlanned;
  WorkerState to = WorkerState::kPlanned;
  std::optional<std::string> expected_owner;
  // Into a leased state: the new owner and the lease's length (the lease
  // runs from the store's now). Into any other state the lease is cleared.
  std::string lease_owner;
  DurationMs lease_ms = 0;
  std::optional<std::string> final_revision;
  std::optional<std::vector<std::string>> changed_files;
  std::string reason;  // the event's; also hold_reason into hold, failure_reason into failed
  std::string payload_json = "{}";
};

class WorkerBook {
 public:
  virtual ~WorkerBook() = default;

  // Stores a new worker in `planned` with its first event; the id, state and
  // times are the store's. A worker of the same (run, step) already there is
  // returned unchanged.
  virtual Result<Worker> create_worker(const Worker& worker, TimeMs now) = 0;
  virtual Result<std::optional<Worker>> get_worker(const std::string& id) = 0;
  virtual Result<std::optional<Worker>> find_worker(const std::string& workflow_run_id,
                                                    const std::string& step_id) = 0;
  // An id or a prefix of at least 6 characters (ambiguity: a conflict).
  virtual Result<Worker> resolve_worker(const std::string& text) = 0;
  // Newest first.
  virtual Result<std::vector<Worker>> list_workers(const WorkerFilter& filter) = 0;
  // The workers the filter selects (its limit and offset ignored).
  virtual Result<std::int64_t> count_workers(const WorkerFilter& filter) = 0;
  // Every event of the worker, in order.
  virtual Result<std::vector<WorkerEvent>> worker_events(const std::string& id) = 0;
  // Applies the change; returns the worker as stored.
  virtual Result<Worker> change_worker(const WorkerChange& change, TimeMs now) = 0;
  // Extends the lease of a worker in a leased state held by `owner`; a
  // worker not so held is a conflict (the holder has lost it).
  virtual Status heartbeat_worker(const std::string& id, const std::string& owner,
                                  DurationMs lease_ms, TimeMs now) = 0;
};

}  // namespace orrery
