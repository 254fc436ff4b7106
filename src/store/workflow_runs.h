// WorkflowRuns: publishing workflow runs and reading them — their steps,
// attempts and journal (docs/workflows.md, "Storage"). Moving a run along
// is the engine's (store/workflow_engine.h); an attempt's own life is the
// claim ledger's (store/claim_ledger.h).
//
// Invariants: a run, its steps and its `created` event are published in one
// transaction; a (workflow name, idempotency key) publishes at most one run.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "core/workflow.h"

namespace orrery {

struct WorkflowRunFilter {
  std::string workflow_name;  // empty: every workflow
  std::optional<WorkflowRunStatus> status;
  std::string loop_run_id;  // the runs a loop's run started (empty: any)
  int limit = 100;
  int offset = 0;
};

// A run to publish: its row (status pending) and one pending row per step.
struct NewWorkflowRun {
  WorkflowRun run;
  std::vector<StepRun> steps;
};

// What publication does around its transaction: `before_commit` runs inside
// it once the rows are written (it writes the run's manifest.json); an error
// from it rolls everything back. `after_rollback` runs when the transaction
// did not commit after `before_commit` succeeded (it removes the manifest).
struct PublishHooks {
  std::function<Status(const WorkflowRun&)> before_commit;
  std::function<void(const WorkflowRun&)> after_rollback;
};

struct PublishedRun {
  WorkflowRun run;
  bool existed = false;  // the idempotency key named a run published before
};

class WorkflowRuns {
 public:
  virtual ~WorkflowRuns() = default;

  // Writes the run, its steps and its `created` event (sequence 1) in one
  // transaction, with the hooks around the commit. A run whose (workflow
  // name, idempotency key) was published before is not written again: that
  // run is returned, existed = true.
  virtual Result<PublishedRun> publish_workflow_run(const NewWorkflowRun& run,
                                                    const PublishHooks& hooks, TimeMs now) = 0;
  virtual Result<std::optional<WorkflowRun>> get_workflow_run(const std::string& id) = 0;
  // An id or an id prefix of at least 6 characters, as resolve_run.
  virtual Result<WorkflowRun> resolve_workflow_run(const std::string& text) = 0;
  // Newest first.
  virtual Result<std::vector<WorkflowRun>> list_workflow_runs(const WorkflowRunFilter& filter) = 0;
  virtual Result<std::int64_t> count_workflow_runs(const WorkflowRunFilter& filter) = 0;
  // In sequence order.
  virtual Result<std::vector<StepRun>> list_step_runs(const std::string& run_id) = 0;
  // In step sequence, then attempt order, with their tails.
  virtual Result<std::vector<StepAttempt>> list_step_attempts(const std::string& run_id) = 0;
  virtual Result<std::optional<StepAttempt>> get_step_attempt(const std::string& dispatch_id) = 0;
  // Events with sequence > after_sequence, in sequence order, at most limit.
  virtual Result<std::vector<WorkflowEvent>> list_workflow_events(const std::string& run_id,
                                                                  std::int64_t after_sequence,
                                                                  int limit) = 0;
  // Asks the run's driver to cancel it: cancel_requested set on a pending
  // or running run. The run as it is afterwards (a finished one unchanged);
  // not_found for no run.
  virtual Result<WorkflowRun> request_workflow_cancel(const std::string& run_id, TimeMs now) = 0;
};

}  // namespace orrery
