#include "ops/items.h"

#include "exec/wake.h"

namespace orrery::ops {

Result<Enqueued> enqueue(const QueuePlace& place, const std::string& route, WorkItem item) {
  auto found = place.routes.resolve_route(route);
  if (!found) return found.error();
  item.route_id = found->id;
  auto enqueued = place.items.enqueue_item(item, place.now);
  if (!enqueued) return enqueued.error();
  if (enqueued->outcome != EnqueueOutcome::kDuplicate) notify_daemon(place.home);
  return enqueued;
}

Result<BatchEnqueued> enqueue_batch(const QueuePlace& place, const std::string& route,
                                    const std::string& lines) {
  auto found = place.routes.resolve_route(route);
  if (!found) return found.error();
  ItemLines parsed = parse_item_lines(lines);
  BatchEnqueued batch;
  batch.invalid = std::move(parsed.invalid);
  std::vector<WorkItem> items;
  items.reserve(parsed.items.size());
  for (ItemLine& line : parsed.items) {
    items.push_back(std::move(line.item));
    items.back().route_id = found->id;
  }
  auto enqueued = place.items.enqueue_items(items, place.now);
  if (!enqueued) return enqueued.error();
  for (const Enqueued& one : *enqueued) {
    batch.ids.push_back(one.item.id);
    batch.counts.count(one.outcome);
  }
  notify_daemon(place.home);
  return batch;
}

}  // namespace orrery::ops
