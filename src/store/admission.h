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
#include "core/attempt_feedback.h"
#include "core/result.h"
#include "core/route.h"
#include "core/time.h"
#include "core/work_item.h"
#include "store/fence.h"

namespace orrery {

// What admission reads in one snapshot.
struct AdmissionQueue {
  std::vector<Route> routes;
  // A snapshot's: queued, deferred and failed items. The daemon's read:
  // only queued items that every limit lets in before this tick's own
  // admissions, best ranked first (see AdmissionRead).
  std::vector<QueueEntry> candidates;
  std::vector<QueueEntry> holding;  // admitted and running items
  bool more = false;                // the daemon's read stopped at its limit
};

// What the daemon's read asks for. Its candidates are the queued items
// whose retry is due, on active routes not in `held_routes`, whose route,
// project and group are each below the route's limit (counting the items
// holding capacity) — none when the global cap is reached — ranked by
// effective priority, age, key and route, at most `limit` of them. So no
// item a full limit holds leaves the database, and an item that no limit
// holds is never behind a page of items that one does.
struct AdmissionRead {
  TimeMs now = 0;
  int limit = 100;
  int global_max_running = 0;            // 0: none
  std::vector<std::string> held_routes;  // ids of routes a cooldown holds
};

// A running item whose workflow run has finished and whose changes have
// left the merge queue (none of their entries waiting or ready).
struct FinishedItemRun {
  WorkItem item;
  Route route;
  WorkflowRunStatus run_status = WorkflowRunStatus::kFailed;
  std::string run_error;
  std::vector<AttemptChange> changes;  // the run's workers and their entries
};

// Where a finished run takes its item (the daemon decides, core/work_item.h).
struct ItemSettlement {
  std::string item_id;
  std::string workflow_run_id;  // the run it ran: the guard
  ItemStatus status = ItemStatus::kSucceeded;
  std::optional<TimeMs> next_attempt_at;  // a failed item's retry
  std::string reason;                     // appended to the item's reasons
  // The item's feedback for its next attempt: a failed attempt's record,
  // "" to clear it (a success); none: left as it is.
  std::optional<std::string> feedback_json;
};

class Admission {
 public:
  virtual ~Admission() = default;

  // The daemon's read, fenced: failed items whose retry is due are queued
  // again (deferred on a paused route), then the routes, the items holding
  // capacity and the candidates `read` asks for.
  virtual Result<AdmissionQueue> read_admission_queue(const AdmissionRead& read,
                                                      const Fence& fence) = 0;
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
  // Running items whose workflow runs have finished and whose changes have
  // left the merge queue, with those changes.
  virtual Result<std::vector<FinishedItemRun>> finished_item_runs(int limit) = 0;
  virtual Status settle_item(const ItemSettlement& settlement, TimeMs now, const Fence& fence) = 0;
};

}  // namespace orrery
