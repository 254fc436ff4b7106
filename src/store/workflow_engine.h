// WorkflowEngine: what a workflow run's driver writes (docs/workflows.md,
// "One driver per run", "Attempts"): its engine lease, the attempts it
// reserves for ready steps, and its decisions (core/workflow_progress.h),
// each fenced by the lease.
//
// Invariants: a driver whose lease is not live changes nothing; a
// repeated reservation never runs a step twice; a finished step never
// changes again.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "core/workflow.h"
#include "core/workflow_progress.h"
#include "store/claim_ledger.h"

namespace orrery {

// The engine lease a driver holds on one workflow run: every write of the
// driver carries it, and one whose lease is not live changes nothing.
struct EngineFence {
  std::string run_id;
  std::string driver;
  std::string token;
};

// Asking for an attempt of a step (reserve_step_attempt).
struct StepReserve {
  std::string step_id;
  std::string dispatch_id;  // dispatch_id(run, step, attempts made + 1)
  std::string claimant;     // the attempt's claimant: the driver
  std::string host;         // where its supervisor runs
  DurationMs lease_ms = kDefaultStepLeaseMs;
  // The driver saw the current attempt's supervisor end without finishing
  // it (its pid and start time gone): reclaim it without waiting for its
  // lease to run out.
  bool holder_dead = false;
};

enum class ReserveAnswer { kReserved, kExisting, kBusy, kReclaimed, kExhausted };
const char* reserve_answer_name(ReserveAnswer answer);

struct Reservation {
  ReserveAnswer answer = ReserveAnswer::kReserved;
  // reserved, reclaimed: the new attempt; existing: the one with that
  // dispatch id; busy: the live attempt that holds the step; exhausted: the
  // attempt just abandoned.
  StepAttempt attempt;
  // reclaimed, exhausted: the previous attempt, now abandoned
  std::optional<StepAttempt> reclaimed;
};

// One step's change in an advance, guarded by the status it was read with,
// and a journal entry to append: as the driver's plan decides them
// (core/workflow_progress.h).
using StepChange = StepDecision;
using NewWorkflowEvent = JournalEntry;

// A driver's decisions, written at once (advance_workflow_run).
struct WorkflowAdvance {
  std::vector<StepChange> steps;
  std::vector<NewWorkflowEvent> events;  // appended in this order
  // The run's terminal status; its terminal event is the last of `events`.
  std::optional<WorkflowRunStatus> finish;
  std::string error;  // with finish
  // With finish: the update the run left for its workflow's goal
  // (docs/goals.md), or why it could not be read.
  std::optional<std::string> goal_update;
  std::string goal_update_error;
};

// The claim an attempt is held by: its dispatch id, claimant and token.
Claim claim_of(const StepAttempt& attempt);

class WorkflowEngine {
 public:
  virtual ~WorkflowEngine() = default;

  // Acquiring succeeds when the run is pending or running and no live lease
  // is held (none, released, or expired at `now`): a fresh token whose
  // generation is one more than the run's last; a pending run becomes
  // running with started_at = now. Another driver's live lease: nullopt,
  // nothing changes. A finished run: a conflict; no run: not_found.
  virtual Result<std::optional<EngineFence>> acquire_engine_lease(const std::string& run_id,
                                                                  const std::string& driver,
                                                                  DurationMs ttl_ms,
                                                                  TimeMs now) = 0;
  // Extends a live lease; a lost or expired one is a conflict ("engine
  // lease lost").
  virtual Status heartbeat_engine_lease(const EngineFence& fence, DurationMs ttl_ms,
                                        TimeMs now) = 0;
  // Gives a held lease up (the run then needs a driver); not held: no-op.
  virtual Status release_engine_lease(const EngineFence& fence) = 0;
  // Pending or running runs with no live engine lease at `now`, oldest
  // first: the runs a daemon starts drivers for.
  virtual Result<std::vector<WorkflowRun>> workflow_runs_without_driver(TimeMs now, int limit) = 0;
  // Reserves an attempt of a step for the driver holding `fence`, in one
  // transaction (docs/workflows.md, "Attempts"):
  // - existing: an attempt with request.dispatch_id exists: it is returned,
  //   nothing changes (a repeated request never runs a step twice);
  // - busy: the step's current attempt is running, its lease live and its
  //   holder not known dead: it is returned, nothing changes;
  // - reclaimed: the current attempt is running but its lease expired at
  //   `now` (or holder_dead): it becomes abandoned ("the attempt's
  //   supervisor died" / "lease expired"), `recovered` is journaled, and a
  //   new attempt is reserved as below;
  // - exhausted: as reclaimed, but the step has no attempts left (more than
  //   kMaxFreeReattempts abandoned attempts count, core/retry_policy.h):
  //   the abandon is written, no attempt is reserved, and the driver
  //   settles the step with the abandoned attempt (failed);
  // - reserved: the step is pending: attempt number attempts + 1 is written
  //   running under a fresh claim token for request.claimant with a lease
  //   from now; the step becomes running (started_at set on its first
  //   attempt) and `step_started` is journaled {attempt, dispatch_id}.
  // A finished step, a dispatch id that is not the next attempt's, or a
  // step with no attempts left is a conflict; a lease not live a conflict
  // ("engine lease lost"); nothing changes then.
  virtual Result<Reservation> reserve_step_attempt(const EngineFence& fence,
                                                   const StepReserve& request, TimeMs now) = 0;
  // Applies a driver's decisions in one transaction, fenced by its lease:
  // every step change only from its `from` status (a mismatch: a conflict,
  // nothing written), events appended in order with the next sequences,
  // and with `finish` the run finished (finished_at = now, error, lease
  // released). A finished run or a lease not live: a conflict, nothing
  // written.
  virtual Status advance_workflow_run(const EngineFence& fence, const WorkflowAdvance& advance,
                                      TimeMs now) = 0;
};

}  // namespace orrery
