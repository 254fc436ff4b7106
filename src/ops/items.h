// Putting work on a route's queue (docs/admission.md, "Enqueueing"): one
// item, or a batch of JSON lines. An item's key makes enqueueing idempotent:
// the first is created, one whose fields changed while it waits is
// refreshed, the same again is a duplicate and changes nothing. The daemon
// is told whenever something changed.
//
// Invariants: a route named but not found is an error and nothing is
// stored; a batch stores every valid line in one transaction, or (a store
// error) none, and its invalid lines are reported, never stored.
#pragma once

#include <string>
#include <vector>

#include "core/item_lines.h"
#include "core/work_item.h"
#include "store/item_queue.h"
#include "store/route_catalog.h"

namespace orrery::ops {

// Where items are put: the queue, the routes, the data directory whose
// daemon is told, and the instant.
struct QueuePlace {
  ItemQueue& items;
  RouteCatalog& routes;
  std::string home;
  TimeMs now = 0;
};

// The item on the route (an id, id prefix or name); its route_id is set here.
Result<Enqueued> enqueue(const QueuePlace& place, const std::string& route, WorkItem item);

struct BatchEnqueued {
  EnqueueCounts counts;
  std::vector<std::string> ids;      // every valid line's item, in line order
  std::vector<InvalidLine> invalid;  // the lines not stored, and why
};

// The batch's valid lines (core/item_lines.h) on the route.
Result<BatchEnqueued> enqueue_batch(const QueuePlace& place, const std::string& route,
                                    const std::string& lines);

}  // namespace orrery::ops
