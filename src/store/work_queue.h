// WorkQueue: routes, invocations and work items — the admission queue
// (docs/admission.md). Users add routes and enqueue items; the scheduling
// daemon admits them, starts one workflow run per admission and settles each
// item when its run ends.
//
// Invariants every backend keeps:
// - an item is unique by (route, key); an invocation by (source kind,
//   dedupe key) when it has a dedupe key;
// - an enqueue of a key that exists refreshes a queued or deferred item and
//   changes nothing else (core/work_item.h);
// - every status change is one guarded statement on the status read, its
//   row count checked: a change that lost a race changes nothing and says
//   what the item is now;
// - an admission never takes a limit past its value (route, project, group,
//   global), whoever else admits at the same time; admissions, starts and
//   settlements are fenced by the daemon lease;
// - a paused route's waiting items are deferred and its new items are
//   deferred; resuming queues them again, in the same transaction;
// - bad input changes nothing stored.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/admission_plan.h"
#include "core/result.h"
#include "core/route.h"
#include "core/time.h"
#include "core/work_item.h"
#include "store/fence.h"

namespace orrery {

// How many items of a route are in each status.
struct ItemCounts {
  std::map<ItemStatus, std::int64_t> by_status;
  std::int64_t of(ItemStatus status) const {
    auto found = by_status.find(status);
    return found == by_status.end() ? 0 : found->second;
  }
};

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

// What admission reads in one snapshot.
struct AdmissionQueue {
  std::vector<Route> routes;
  std::vector<QueueEntry> candidates;  // queued, deferred and failed items
  std::vector<QueueEntry> holding;     // admitted and running items
};

// A running item whose workflow run has finished.
struct FinishedItemRun {
  WorkItem item;
  Route route;
  WorkflowRunStatus run_status = WorkflowRunStatus::kFailed;
  std::string run_error;
};

// Where a finished run takes its item (the daemon decides, core/work_item.h).
struct ItemSettlement {
  std::string item_id;
  std::string workflow_run_id;  // the run it ran: the guard
  ItemStatus status = ItemStatus::kSucceeded;
  std::optional<TimeMs> next_attempt_at;  // a failed item's retry
  std::string reason;                     // appended to the item's reasons
};

class WorkQueue {
 public:
  virtual ~WorkQueue() = default;

  // A new route (its id the store's); a name taken is a conflict.
  virtual Result<Route> create_route(const Route& route, TimeMs now) = 0;
  // An id, a name, or an id prefix of at least 6 characters.
  virtual Result<Route> resolve_route(const std::string& text) = 0;
  virtual Result<std::optional<Route>> get_route(const std::string& id) = 0;
  // By name.
  virtual Result<std::vector<Route>> list_routes() = 0;
  // Each route's item counts, by route id.
  virtual Result<std::map<std::string, ItemCounts>> count_items_by_route() = 0;
  // Replaces the route's settings and status (by id); a pause defers its
  // queued items and a resume queues its deferred ones, in one transaction.
  // A name taken by another route is a conflict.
  virtual Result<Route> update_route(const Route& route, TimeMs now) = 0;
  // Deletes the route, its items and the invocations no other item uses.
  // While an item is admitted or running it is refused (a conflict naming
  // it) unless `force`; then the ids of those items' workflow runs are
  // returned for the caller to cancel.
  virtual Result<std::vector<std::string>> delete_route(const std::string& id, bool force) = 0;
  // Whether a route runs a version of the workflow: the route's name.
  virtual Result<std::optional<std::string>> route_of_workflow(const std::string& workflow_id) = 0;

  // Creates, refreshes or reports the item (route_id, key) of `item`.
  virtual Result<Enqueued> enqueue_item(const WorkItem& item, TimeMs now) = 0;
  virtual Result<std::optional<WorkItem>> get_item(const std::string& id) = 0;
  // An id, an id prefix of at least 6 characters, or ROUTE/KEY.
  virtual Result<WorkItem> resolve_item(const std::string& text) = 0;
  // Queued items of one status by effective priority then age; otherwise
  // newest first.
  virtual Result<std::vector<WorkItem>> list_items(const ItemFilter& filter) = 0;
  // A resting item (core/work_item.h) queued again, its attempts reset.
  // Another status is a conflict naming it.
  virtual Result<WorkItem> requeue_item(const std::string& id, const std::string& reason,
                                        TimeMs now) = 0;
  // An item not yet finished cancelled; a finished one is a conflict. The
  // item as it is afterwards; its workflow run (if any) is the caller's to
  // cancel.
  virtual Result<WorkItem> cancel_item(const std::string& id, const std::string& reason,
                                       TimeMs now) = 0;

  // Admission (the daemon): failed items whose retry is due queued again,
  // then the queue as admission sees it.
  virtual Result<AdmissionQueue> read_admission_queue(TimeMs now, const Fence& fence) = 0;
  // Admits the items, in order, in one transaction: each guarded on the
  // item being queued on an active route and on every limit still holding
  // (`global_max_running`, 0: none). The items admitted; an item whose guard
  // failed is left as it is.
  virtual Result<std::vector<WorkItem>> admit_items(const std::vector<std::string>& ids,
                                                    int global_max_running, TimeMs now,
                                                    const Fence& fence) = 0;
  // Admitted items (whose workflow runs are to be started), oldest first.
  virtual Result<std::vector<WorkItem>> admitted_items(int limit) = 0;
  // An admitted item's run started: running, linked to the run.
  virtual Status start_item(const std::string& id, const std::string& workflow_run_id, TimeMs now,
                            const Fence& fence) = 0;
  // An admitted item whose run could not be started: queued again without
  // spending its attempt while it has free returns left, else dead_letter;
  // the reason is appended.
  virtual Result<WorkItem> return_item(const std::string& id, const std::string& reason, TimeMs now,
                                       const Fence& fence) = 0;
  // Running items whose workflow runs have finished.
  virtual Result<std::vector<FinishedItemRun>> finished_item_runs(int limit) = 0;
  virtual Status settle_item(const ItemSettlement& settlement, TimeMs now, const Fence& fence) = 0;

  // Deletes finished items (succeeded, dead_letter, cancelled) last
  // changed before `before`, and the invocations no item uses: the count.
  virtual Result<std::int64_t> prune_items(TimeMs before) = 0;
};

}  // namespace orrery
