// MergeQueue: the merge queue a store holds (docs/workers.md, "The merge
// queue"): the per-repository settings, the entries, and the one driver of
// each (repository, target branch) queue.
//
// Invariants every backend keeps: a worker has at most one entry; an entry
// enters only for a worker in `reported` (read under its row lock); a
// change of an entry's state is one guarded UPDATE (from the state as
// read, and the driver when one is named) written in one transaction with
// the worker's change that goes with it, both row counts checked; a queue
// has at most one live driver lease, and only its holder takes or changes
// the queue's head.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/merge_entry.h"
#include "core/result.h"
#include "core/run.h"  // ProcessIdentity
#include "core/time.h"
#include "store/worker_book.h"

namespace orrery {

struct MergeFilter {
  std::string repo;  // "" : every repository
  std::optional<MergeState> state;
  std::string worker_id;  // "" : every worker
  int limit = 200;
  int offset = 0;
};

// One change of an entry, guarded by `from` (and the driver, when set), with
// the worker change that goes with it.
struct MergeChange {
  std::string entry_id;
  MergeState from = MergeState::kWaiting;
  MergeState to = MergeState::kWaiting;
  // Into ready: the driver taking it. From ready, when set: the entry must
  // be held by this driver.
  std::string driver;
  std::optional<std::string> parent_revision;
  std::optional<std::string> candidate_revision;
  std::optional<std::string> merge_commit;
  std::optional<VerifyRecord> verify;
  std::optional<std::string> conflict_files_json;
  std::string reason;
  std::optional<WorkerChange> worker;
};

// Who drives a queue: the name its entries and workers record, and its
// process on this host (pid 0: not known; only the lease's expiry counts).
struct QueueHolder {
  std::string driver;
  ProcessIdentity process;
};

// One queue: a repository and a target branch.
struct QueueKey {
  std::string repo;
  std::string target;
  friend bool operator==(const QueueKey&, const QueueKey&) = default;
};

class MergeQueue {
 public:
  virtual ~MergeQueue() = default;

  virtual Status configure_queue(const QueueConfig& config, TimeMs now) = 0;
  virtual Result<std::optional<QueueConfig>> queue_config(const std::string& repo) = 0;
  // Enters a reported worker (waiting, at the end of its queue); the entry
  // of a worker that has one already is a conflict naming it.
  virtual Result<MergeEntry> enqueue_merge(const MergeEntry& entry, TimeMs now) = 0;
  // An id or a prefix of at least 6 characters.
  virtual Result<MergeEntry> resolve_merge_entry(const std::string& text) = 0;
  // Oldest first: by queue, then priority (higher first) and arrival.
  virtual Result<std::vector<MergeEntry>> list_merge_entries(const MergeFilter& filter) = 0;
  // The entries the filter selects (its limit and offset ignored).
  virtual Result<std::int64_t> count_merge_entries(const MergeFilter& filter) = 0;
  virtual Result<MergeEntry> change_merge_entry(const MergeChange& change, TimeMs now) = 0;
  // Takes or extends the queue's driver lease for `holder`; false when
  // another driver's lease is live (nothing changes). A lease held by a
  // process of this host that is gone is not live, whatever its expiry. A
  // lease_ms of 0 gives a held lease up.
  virtual Result<bool> lease_queue(const QueueKey& queue, const QueueHolder& holder,
                                   DurationMs lease_ms, TimeMs now) = 0;
  // Queues with waiting or ready entries and no live driver at `now` (none,
  // expired, or a process of this host that is gone): the queues a daemon
  // starts a driver for.
  virtual Result<std::vector<QueueKey>> queues_with_work(TimeMs now) = 0;
};

}  // namespace orrery
