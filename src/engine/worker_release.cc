#include "engine/worker_release.h"

#include <optional>

#include "exec/worker_actions.h"

namespace orrery {
namespace {

constexpr int kMaxHeldWorkersRead = 10000;

// The item the worker's run served, when it has since succeeded with
// another run; nothing otherwise.
Result<std::optional<WorkItem>> succeeded_without(Store& store, const Worker& worker) {
  auto run = store.get_workflow_run(worker.workflow_run_id);
  if (!run) return run.error();
  if (!run->has_value() || (*run)->item_id.empty()) return std::optional<WorkItem>();
  auto item = store.get_item((*run)->item_id);
  if (!item) return item.error();
  if (!item->has_value() || (*item)->status != ItemStatus::kSucceeded ||
      (*item)->workflow_run_id == worker.workflow_run_id)
    return std::optional<WorkItem>();
  return *item;
}

std::string release_reason(const WorkItem& item, const Worker& worker) {
  return "released: work item " + item.id + " succeeded on attempt " +
         std::to_string(item.attempts) + " (workflow run " + item.workflow_run_id +
         "); the branch " + worker.branch + " is kept until orrery worker discard " + worker.id;
}

}  // namespace

Result<int> release_superseded_workers(Store& store, Git& git, const std::string& host, TimeMs now,
                                       const EventSink& log) {
  WorkerFilter held;
  held.state = WorkerState::kHold;
  held.limit = kMaxHeldWorkersRead;
  auto workers = store.list_workers(held);
  if (!workers) return workers.error();
  int released = 0;
  for (const Worker& worker : *workers) {
    if (worker.host != host) continue;
    auto item = succeeded_without(store, worker);
    if (!item) return item.error();
    if (!item->has_value()) continue;
    const std::string reason = release_reason(**item, worker);
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
