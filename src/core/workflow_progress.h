// How a workflow run progresses (docs/workflows.md, "How a run progresses"):
// what its driver does next, decided from the spec, the run's step records
// and whether a cancel was requested. Pure: no clock, no I/O.
//
// Rules:
// - a step is blocked by a dependency that is skipped or cancelled, or that
//   failed or timed out without continue_on_failure; a pending blocked step
//   is skipped at once, and so, in the same plan, are the pending steps it
//   blocks in turn (the reason names the blocking dependency);
// - a step is ready when it is pending and every dependency succeeded, or
//   failed or timed out with continue_on_failure; ready steps start in spec
//   order while fewer than max_parallel steps run;
// - a cancel starts nothing, cancels every pending step and asks to stop
//   every running one; the run is cancelled once none runs;
// - once every step is finished (and no cancel was requested) the run
//   succeeded when each step succeeded or its failure was allowed by
//   continue_on_failure, else it failed, naming its first failed step in
//   spec order;
// - a finished attempt retries (its step back to pending) when it failed,
//   timed out or was abandoned, attempts remain and no cancel was requested;
//   otherwise its step finishes with step_status_of(the attempt's status).
// Every decision comes with its journal event; the terminal event is the
// last of a batch.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/workflow.h"

namespace orrery {

// One step's change, guarded by the status it was read with (the store
// writes it as it is: store/store.h StepChange).
struct StepDecision {
  std::string step_id;
  StepStatus from = StepStatus::kPending;
  StepStatus to = StepStatus::kPending;
  std::optional<TimeMs> finished_at;
  std::optional<int> exit_code;
  std::optional<std::string> error;
  std::optional<std::string> outputs_json;
  friend bool operator==(const StepDecision&, const StepDecision&) = default;
};

// One journal entry to append (store/store.h NewWorkflowEvent); the
// payload is a JSON object as text.
struct JournalEntry {
  std::string event_type;
  std::string step_id;  // empty for run events
  std::string payload_json = "{}";
  friend bool operator==(const JournalEntry&, const JournalEntry&) = default;
};

// What a driver does next: write `changes`, `events` and `finish` in one
// advance, then reserve an attempt of each `ready` step and stop each
// `stop` step's process group.
struct Progress {
  std::vector<StepDecision> changes;  // skips and cancels, in the order decided
  std::vector<JournalEntry> events;   // in order; a terminal event is the last
  std::vector<std::string> ready;     // steps to start now, in spec order
  std::vector<std::string> stop;      // running steps to stop (a cancel), spec order
  std::optional<WorkflowRunStatus> finish;
  std::string error;  // the run's error, with finish
};

// The plan for a run whose steps are `steps` (one per spec step, any
// order). max_parallel is clamped to 1..kMaxParallelSteps; `now` is the
// finish time of the steps skipped or cancelled. A spec step without a
// record, or a record of no spec step, is an internal error.
Result<Progress> plan_progress(const WorkflowSpec& spec, const std::vector<StepRun>& steps,
                               int max_parallel, bool cancel_requested, TimeMs now);

// How one finished attempt of a running step settles it.
struct AttemptSettlement {
  bool retry = false;  // the step goes back to pending for another attempt
  // The attempt hit its provider's usage limit: a retry should wait for the
  // account's cooldown (docs/execution.md, "Usage limits").
  bool usage_limited = false;
  StepDecision change;
  JournalEntry event;  // step_succeeded, step_failed, step_timed_out or step_cancelled
};

// Settles `step` (running) with its finished attempt `attempt` (any
// terminal attempt status). The attempt's finish time is the step's, or
// `now` when it has none. A step that is not running, or an attempt that is
// not finished, not the step's, or not its current one (the step's
// dispatch_id, when set), is an internal error.
Result<AttemptSettlement> settle_attempt(const StepRun& step, const StepAttempt& attempt,
                                         bool cancel_requested, TimeMs now);

// The step records with the changes applied (status, and the fields a
// change sets), so that a driver can plan on top of settlements before
// writing them all at once.
void apply_decisions(std::vector<StepRun>& steps, const std::vector<StepDecision>& changes);

}  // namespace orrery
