// Admission: admission of work items by the scheduling daemon
// (docs/admission.md, "Admission") — reading the queue, admitting within
// every limit, linking each admission to the workflow run it starts, and
// settling items whose runs have ended.
//
// Invariants every backend keeps: an admission never takes a limit past its
// value (route, project, group, global), whoever else admits at the same
// time; admissions, starts, returns and settlements are fenced by the daemon
// lease and guarded on the status they read, their row counts checked.
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

class Admission {
 public:
  virtual ~Admission() = default;

  // The daemon's read, fenced: failed items whose retry is due are queued
  // again (deferred on a paused route), then the queue as admission sees it.
  virtual Result<AdmissionQueue> read_admission_queue(TimeMs now, const Fence& fence) = 0;
  // The same queue, read only (for `item show`: what holds an item); a
  // failed item whose retry is due is still failed here.
  virtual Result<AdmissionQueue> admission_snapshot() = 0;
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
};

}  // namespace orrery
