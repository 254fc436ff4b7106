// ItemQueue: work items as users see them (docs/admission.md, "Work
// items") — enqueueing, finding, listing, requeueing, cancelling, pruning.
//
// Invariants every backend keeps:
// - an item is unique by (route, key); an invocation by (source kind,
//   dedupe key) when it has a dedupe key;
// - an enqueue of a key that exists refreshes a queued or deferred item and
//   changes nothing else (core/work_item.h), whoever enqueues it at once;
// - every status change is one guarded statement on the status read, its
//   row count checked: a change that lost a race changes nothing and says
//   what the item is now;
// - bad input changes nothing stored.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "core/work_item.h"

namespace orrery {

struct ItemFilter {
  std::string route_id;  // empty: every route
  std::optional<ItemStatus> status;
  std::string project;  // empty: any
  TimeMs now = 0;       // for effective priorities
  int limit = 100;
  int offset = 0;
};

// An enqueue: the item's route, key, priority, project, group, input and
// invocation (its id is the store's to give).
struct Enqueued {
  WorkItem item;
  EnqueueOutcome outcome = EnqueueOutcome::kCreated;
};

class ItemQueue {
 public:
  virtual ~ItemQueue() = default;

  // Creates, refreshes or reports the item (route_id, key) of `item`.
  virtual Result<Enqueued> enqueue_item(const WorkItem& item, TimeMs now) = 0;
  // Each item as enqueue_item does, all in one transaction: every one
  // stored, or (an error) none. The outcomes are in the order given.
  virtual Result<std::vector<Enqueued>> enqueue_items(const std::vector<WorkItem>& items,
                                                      TimeMs now) = 0;
  virtual Result<std::optional<WorkItem>> get_item(const std::string& id) = 0;
  // An id, an id prefix of at least 6 characters, or ROUTE/KEY.
  virtual Result<WorkItem> resolve_item(const std::string& text) = 0;
  // Queued items of one status by effective priority then age; otherwise
  // newest first.
  virtual Result<std::vector<WorkItem>> list_items(const ItemFilter& filter) = 0;
  // The items the filter selects (its limit and offset ignored).
  virtual Result<std::int64_t> count_items(const ItemFilter& filter) = 0;
  // A resting item (core/work_item.h) queued again, its attempts reset.
  // Another status is a conflict naming it.
  virtual Result<WorkItem> requeue_item(const std::string& id, const std::string& reason,
                                        TimeMs now) = 0;
  // An item not yet finished cancelled; a finished one is a conflict. The
  // item as it is afterwards; its workflow run (if any) is the caller's to
  // cancel.
  virtual Result<WorkItem> cancel_item(const std::string& id, const std::string& reason,
                                       TimeMs now) = 0;

  // Deletes finished items (succeeded, dead_letter, cancelled) last
  // changed before `before`, and the invocations no item uses: the count
  // of items (a dry run counts them and deletes nothing).
  virtual Result<std::int64_t> prune_items(TimeMs before, bool dry_run) = 0;
};

}  // namespace orrery
