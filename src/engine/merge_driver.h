// The merge queue's driver (docs/workers.md, "The merge queue"): `orrery
// drive-queue REPO --target BRANCH`, started by the daemon for a queue with
// work and no live driver. It holds the queue's lease and takes its entries
// one at a time, highest priority first, then in order of arrival: the
// candidate is put on the current tip of the target branch in a scratch
// worktree by the entry's strategy, verified there, and the target moved to
// the verified commit by compare-and-swap (a fast-forward of the checkout
// when the target is checked out). It exits when the queue is empty.
//
// Invariants: the target branch only ever moves from the tip that was
// verified to the commit that was verified; a tip that moved meanwhile is
// verified again, never overwritten; a checkout of the target with
// uncommitted changes is never touched (the entry is rejected saying so);
// a verification is never skipped unless the queue says `none`, and every
// entry records what ran, how it ended, its output's tail (scrubbed) and the
// tree it verified; a conflict, a failed verification or any other refusal
// holds the worker with its branch and worktree kept. Before the target
// moves, the entry records the commit it is about to become; a driver that
// finds a ready entry whose recorded commit the target already holds
// records the merge rather than merging again, so that whatever dies, an
// entry lands at most once.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "exec/clock.h"
#include "exec/command_runner.h"
#include "store/store.h"

namespace orrery {

inline constexpr DurationMs kVerifyTimeoutMs = 60 * 60 * 1000;
inline constexpr int kMaxTipMoves = 10;
// The queue's lease and the lease on the worker it merges, renewed every
// third of it, also while a verification runs.
inline constexpr DurationMs kQueueLeaseMs = 60'000;

struct MergeDriverOptions {
  std::string home;
  std::string driver;                 // who holds the queue, e.g. queue@HOST:PID
  ProcessIdentity process;            // this process (pid 0: only the lease's expiry counts)
  std::vector<EnvVar> env;            // git's and the verification's environment
  CommandRunner* commands = nullptr;  // null: the system's
  Clock* clock = nullptr;             // null: the real clock
  DurationMs verify_timeout_ms = kVerifyTimeoutMs;
};

// Drives the queue until it is empty (or another driver holds it); returns
// how many entries it ended (merged, conflict or rejected).
Result<int> drive_merge_queue(Store& store, const QueueKey& queue,
                              const MergeDriverOptions& options);

}  // namespace orrery
