// The admission step of the daemon's tick (docs/admission.md, "Admission"):
//   1. settle running items whose workflow runs have finished: succeeded,
//      cancelled, failed with its retry time while attempts remain, or
//      dead_letter with the run's error;
//   2. read the queue (due retries queued again), plan it (core/
//      admission_plan.h, with the provider cooldowns that hold routes) and
//      admit the plan in one fenced transaction whose every admission is a
//      guarded statement;
//   3. start each admitted item: publish one workflow run of its route's
//      workflow (idempotency key "item:ID:N", its Nth admission; the item in
//      item.json),
//      link the item to it (running) and start its driver. Items left
//      admitted by a daemon that died between 2 and 3 are started the same
//      way: the key makes a second publication return the first run, and
//      no attempt is spent twice.
// A run that cannot be published returns its item to the queue without
// spending the attempt, at most kMaxFreeReturns times (then dead_letter).
//
// Invariants: every write is fenced by the daemon lease; a lost lease is
// returned at once; an item is linked to at most one run per attempt.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "engine/tick_context.h"
#include "store/store.h"

namespace orrery {

struct AdmissionSettings {
  int global_max_running = 0;  // 0: no cap across routes
  // Admissions per tick at most (the rest the next tick, at once).
  int max_admissions = 100;
  // Read and plan the queue. The daemon plans only when something the plan
  // depends on may have changed (docs/admission.md, "Admission"); a tick
  // that settles an item plans whatever this says.
  bool plan = true;
};

struct AdmissionReport {
  int settled = 0;
  // Items settled succeeded: held workers of their earlier attempts are
  // the daemon's to release (engine/worker_release.h).
  int succeeded = 0;
  int admitted = 0;
  int started = 0;
  bool more = false;  // work was left for another tick at once
  bool planned = false;
  // The queue changed under this step (it settled, admitted or started):
  // the next tick plans again.
  bool changed() const { return settled > 0 || admitted > 0 || started > 0 || more; }
};

// Starts the driver of a run a work item's admission published.
using StartDriver = std::function<Status(const std::string& run_id)>;

// Steps 2 and 3 alone: the queue read, planned and admitted (what
// run_admission does when it plans), adding to `report`.
Status admit_waiting_items(Store& store, const TickSettings& settings,
                           const AdmissionSettings& admission, TimeMs now, AdmissionReport& report);

Result<AdmissionReport> run_admission(Store& store, const TickSettings& settings,
                                      const AdmissionSettings& admission, TimeMs now,
                                      const StartDriver& start_driver, const EventSink& log);

}  // namespace orrery
