// The daemon's part in the merge queue (docs/workers.md, "The merge
// queue"): a queue with work and no live driver gets one, `orrery
// drive-queue REPO --target BRANCH`, started in its own session so that a
// verification never blocks the daemon's tick. The daemon looks when it
// takes its lease, at every heartbeat and when it is woken (a step that
// enqueued, `queue retry`).
//
// Invariant: a queue is given at most one driver per kQueueStartGapMs by
// this daemon; two started anyway are harmless: only one gets the queue's
// lease, the other exits.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>

#include "exec/launcher.h"
#include "store/merge_queue.h"

namespace orrery {

inline constexpr std::chrono::milliseconds kQueueStartGapMs{1000};

class QueueDriverStarter {
 public:
  using Log = std::function<void(const std::string&)>;
  using SteadyTime = std::chrono::steady_clock::time_point;
  explicit QueueDriverStarter(StoreLocation location) : location_(std::move(location)) {}

  void start_missing(MergeQueue& store, TimeMs now, SteadyTime steady_now, const Log& log);

 private:
  StoreLocation location_;
  std::map<std::string, SteadyTime> started_;  // by "repo\ttarget"
};

}  // namespace orrery
