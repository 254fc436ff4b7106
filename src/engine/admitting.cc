#include "engine/admitting.h"

#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "core/attempt_feedback.h"
#include "core/exact_json.h"
#include "core/retry_policy.h"
#include "engine/admission_input.h"
#include "engine/lease_failure.h"
#include "exec/workflow_publish.h"
#include "views/admission_view.h"

namespace orrery {
namespace {

// Finished item runs settled per tick at most (the rest at once after).
constexpr int kSettleBatch = 100;

std::uint64_t next_random() {
  static std::mt19937_64 generator{std::random_device{}()};
  return generator();
}

bool lease_lost(const Error& error) {
  return error.code == ErrorCode::kConflict && error.message == "daemon lease lost";
}

// The workflow run status an attempt's verdict settles its item as.
WorkflowRunStatus settled_as(AttemptVerdict verdict) {
  switch (verdict) {
    case AttemptVerdict::kSucceeded:
      return WorkflowRunStatus::kSucceeded;
    case AttemptVerdict::kCancelled:
      return WorkflowRunStatus::kCancelled;
    default:
      return WorkflowRunStatus::kFailed;
  }
}

// Where the attempt takes its item; none while a change of it is still in
// the merge queue.
std::optional<ItemSettlement> settlement_of(const FinishedItemRun& end, TimeMs now) {
  const WorkItem& item = end.item;
  AttemptRecord record;
  record.workflow_run_id = item.workflow_run_id;
  record.attempt = item.attempts;
  record.run_status = end.run_status;
  record.run_error = end.run_error;
  record.changes = end.changes;
  const AttemptOutcome outcome = attempt_outcome(record);
  if (outcome.verdict == AttemptVerdict::kUndecided) return std::nullopt;
  ItemSettlement settlement;
  settlement.item_id = item.id;
  settlement.workflow_run_id = item.workflow_run_id;
  settlement.status =
      item_status_after_run(settled_as(outcome.verdict), item.attempts, item.max_attempts);
  settlement.reason = outcome.reason;
  if (outcome.verdict == AttemptVerdict::kSucceeded) settlement.feedback_json = "";
  if (outcome.verdict == AttemptVerdict::kFailed) settlement.feedback_json = outcome.feedback_json;
  if (settlement.status == ItemStatus::kFailed) {
    const DurationMs delay = retry_delay(end.route.retry_delay_ms, end.route.retry_backoff,
                                         item.attempts, next_random());
    settlement.next_attempt_at = now + delay;
  }
  if (settlement.status == ItemStatus::kDeadLetter) {
    settlement.reason += " (attempt " + std::to_string(item.attempts) + " of " +
                         std::to_string(item.max_attempts) + ": no attempts left)";
  }
  return settlement;
}

Result<int> settle_finished(Store& store, const TickSettings& settings, TimeMs now,
                            AdmissionReport& report, const EventSink& log) {
  auto finished = store.finished_item_runs(kSettleBatch);
  if (!finished) return finished.error();
  report.more = report.more || int(finished->size()) == kSettleBatch;
  int settled = 0;
  for (const FinishedItemRun& end : *finished) {
    const std::optional<ItemSettlement> decided = settlement_of(end, now);
    if (!decided) continue;  // an entry entered the queue since the read
    const ItemSettlement& settlement = *decided;
    const Status written = store.settle_item(settlement, now, settings.fence);
    if (!written) {
      if (lease_lost(written.error()) || written.error().code != ErrorCode::kConflict) {
        return written.error();
      }
      continue;  // cancelled or requeued meanwhile: left as it is now
    }
    ++settled;
    if (settlement.status == ItemStatus::kSucceeded) ++report.succeeded;
    log("work item " + end.item.route_name + "/" + end.item.key + " " +
        item_status_name(settlement.status) + ": " + settlement.reason);
  }
  return settled;
}

// The workflow version a route runs, read once per tick.
class WorkflowCache {
 public:
  explicit WorkflowCache(WorkflowCatalog& store) : store_(store) {}
  Result<std::optional<Workflow>> get(const std::string& id) {
    auto found = cache_.find(id);
    if (found != cache_.end()) return found->second;
    auto workflow = store_.get_workflow(id);
    if (!workflow) return workflow.error();
    cache_[id] = *workflow;
    return *workflow;
  }

 private:
  WorkflowCatalog& store_;
  std::map<std::string, std::optional<Workflow>> cache_;
};

// Publishes the item's run (or finds the one its attempt published before
// a crash) and links the item to it; a run that cannot be published returns
// the item.
Result<bool> start_item(Store& store, const TickSettings& settings, const WorkItem& item,
                        WorkflowCache& workflows, TimeMs now, const StartDriver& start_driver,
                        const EventSink& log) {
  auto route = store.get_route(item.route_id);
  if (!route) return route.error();
  std::string problem;
  std::optional<Workflow> workflow;
  if (!*route) {
    problem = "its route is gone";
  } else {
    auto found = workflows.get((*route)->workflow_id);
    if (!found) return found.error();
    workflow = *found;
    if (!workflow) problem = "its route's workflow version " + (*route)->workflow_id + " is gone";
  }
  if (problem.empty()) {
    WorkflowRunRequest request;
    request.workflow = *workflow;
    request.input_json = item.input_json;
    request.idempotency_key = "item:" + item.id + ":" + std::to_string(item.admissions);
    request.cwd = (*route)->cwd.empty() ? settings.location.home : (*route)->cwd;
    request.item_id = item.id;
    request.item_document = write_json(item_json(item, "", now), 2);
    request.feedback_document = item.feedback_json;
    auto published = publish_workflow_run(store, settings.location.home, request, now);
    if (published) {
      const WorkflowRun& run = published->run;
      const Status linked = store.start_item(item.id, run.id, now, settings.fence);
      if (!linked) {
        if (lease_lost(linked.error()) || linked.error().code != ErrorCode::kConflict) {
          return linked.error();
        }
        // Cancelled between admission and start: its run is not wanted.
        (void)store.request_workflow_cancel(run.id, now);
        log("work item " + item.route_name + "/" + item.key +
            " changed before its run started; cancelling workflow run " + run.id);
        return false;
      }
      if (auto driven = start_driver(run.id); !driven) {
        log("cannot start a driver for workflow run " + run.id + " (" + driven.error().message +
            "); the next heartbeat starts one");
      }
      log("work item " + item.route_name + "/" + item.key + " running workflow run " + run.id +
          " (attempt " + std::to_string(item.attempts) + " of " +
          std::to_string(item.max_attempts) + ")");
      return true;
    }
    if (published.error().code == ErrorCode::kUnavailable) return published.error();
    problem = "its workflow run could not be published: " + published.error().message;
  }
  auto returned = store.return_item(item.id, problem, now, settings.fence);
  if (!returned) {
    if (lease_lost(returned.error()) || returned.error().code != ErrorCode::kConflict) {
      return returned.error();
    }
    return false;
  }
  log("work item " + item.route_name + "/" + item.key + " " + item_status_name(returned->status) +
      ": " + problem);
  return false;
}

}  // namespace

// The read brings only candidates that no full limit holds (store/
// admission.h AdmissionRead), at most one tick's admissions of them: the
// database tests each waiting item, and none that is held leaves it.
Status admit_waiting_items(Store& store, const TickSettings& settings,
                           const AdmissionSettings& admission, TimeMs now,
                           AdmissionReport& report) {
  report.planned = true;
  auto holds = route_holds(store, store, store, store, now);
  if (!holds) return holds.error();
  AdmissionRead read;
  read.now = now;
  read.limit = admission.max_admissions;
  read.global_max_running = admission.global_max_running;
  read.held_routes = held_route_ids(*holds);
  auto queue = store.read_admission_queue(read, settings.fence);
  if (!queue) return queue.error();
  if (queue->candidates.empty()) return Ok{};
  const bool queue_more = queue->more;
  AdmissionInput input =
      admission_input(std::move(*queue), *holds, admission.global_max_running, now);
  input.max_admissions = admission.max_admissions;
  input.explain = false;
  const AdmissionPlan plan = plan_admission(input);
  // A full page that admitted nothing does not ask for another tick at
  // once: the next read would be the same.
  report.more = report.more || plan.more || (queue_more && !plan.admit.empty());
  if (plan.admit.empty()) return Ok{};
  auto admitted = store.admit_items(plan.admit, admission.global_max_running, now, settings.fence);
  if (!admitted) return admitted.error();
  report.admitted = int(admitted->size());
  return Ok{};
}

Result<AdmissionReport> run_admission(Store& store, const TickSettings& settings,
                                      const AdmissionSettings& admission, TimeMs now,
                                      const StartDriver& start_driver, const EventSink& log) {
  AdmissionReport report;
  auto settled = settle_finished(store, settings, now, report, log);
  if (!settled) return settled.error();
  report.settled = *settled;
  if (admission.plan || report.settled > 0) {
    auto admitted = admit_waiting_items(store, settings, admission, now, report);
    if (!admitted) return admitted.error();
  }
  // Every admitted item, those of an earlier daemon included, is started.
  auto to_start = store.admitted_items(admission.max_admissions);
  if (!to_start) return to_start.error();
  if (int(to_start->size()) == admission.max_admissions) report.more = true;
  WorkflowCache workflows(store);
  for (const WorkItem& item : *to_start) {
    auto started = start_item(store, settings, item, workflows, now, start_driver, log);
    if (!started) return started.error();
    if (*started) ++report.started;
  }
  return report;
}

}  // namespace orrery
