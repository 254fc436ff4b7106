#include "engine/queue_drivers.h"

namespace orrery {

void QueueDriverStarter::start_missing(MergeQueue& store, TimeMs now, SteadyTime steady_now,
                                       const Log& log) {
  auto queues = store.queues_with_work(now);
  if (!queues) {
    log("cannot look for merge queues with work: " + queues.error().message);
    return;
  }
  std::erase_if(started_,
                [&](const auto& entry) { return steady_now - entry.second > kQueueStartGapMs; });
  for (const QueueKey& queue : *queues) {
    const std::string key = queue.repo + '\t' + queue.target;
    if (started_.count(key) > 0) continue;  // one started just now: let it take the lease
    started_[key] = steady_now;
    if (auto started = start_detached_queue_driver(location_, queue.repo, queue.target); !started) {
      log("cannot start the merge queue driver of " + queue.repo + " (" + queue.target +
          "): " + started.error().message);
      continue;
    }
    log("started the merge queue driver of " + queue.repo + " (" + queue.target + ")");
  }
}

}  // namespace orrery
