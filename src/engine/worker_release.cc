#include "engine/worker_release.h"

#include "exec/worker_actions.h"

namespace orrery {
namespace {

constexpr int kMaxHeldWorkersRead = 10000;

// Whether the worker is one an earlier attempt of `item` left on hold.
Result<bool> superseded(Store& store, const Worker& worker, const SucceededItem& item) {
  if (worker.workflow_run_id == item.workflow_run_id) return false;
  auto run = store.get_workflow_run(worker.workflow_run_id);
  if (!run) return run.error();
  return run->has_value() && (*run)->item_id == item.item_id;
}

std::string release_reason(const SucceededItem& item, const Worker& worker) {
  return "released: work item " + item.item_id + " succeeded on attempt " +
         std::to_string(item.attempts) + " (workflow run " + item.workflow_run_id +
         "); the branch " + worker.branch + " is kept until orrery worker discard " + worker.id;
}

}  // namespace

Result<int> release_superseded_workers(Store& store, Git& git, const std::string& host,
                                       const SucceededItem& item, TimeMs now,
                                       const EventSink& log) {
  WorkerFilter held;
  held.state = WorkerState::kHold;
  held.limit = kMaxHeldWorkersRead;
  auto workers = store.list_workers(held);
  if (!workers) return workers.error();
  int released = 0;
  for (const Worker& worker : *workers) {
    if (worker.host != host) continue;
    auto earlier = superseded(store, worker, item);
    if (!earlier) return earlier.error();
    if (!*earlier) continue;
    const std::string reason = release_reason(item, worker);
    if (auto done = release_worker(store, git, worker, reason, now); !done) {
      log("worker " + worker.id + " not released: " + done.error().message);
      continue;
    }
    log("worker " + worker.id + " " + reason);
    ++released;
  }
  return released;
}

}  // namespace orrery
