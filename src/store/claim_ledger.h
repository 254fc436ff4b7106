// ClaimLedger: the one life cycle of claimed work (docs/architecture.md,
// "Claimed work"), for every kind of it (core/work_kind.h): loop runs and
// workflow step attempts today. Whoever claimed the work (the daemon, a
// runner, `orrery trigger`, a workflow driver) starts its supervisor and
// records it; the supervisor records its target, heartbeats the lease and
// finishes the work; recovery records an outcome the supervisor kept.
//
// Invariants every backend keeps:
// - each write changes exactly one row, and only while the work is running
//   under this claimant and claim token with a live lease (a kept outcome:
//   under this token with an expired lease); otherwise nothing changes and
//   the result is a conflict — the caller lost the claim;
// - finishing clears the claim token and the lease, so a claim finishes at
//   most once.
#pragma once

#include <optional>
#include <string>

#include "core/result.h"
#include "core/run.h"
#include "core/time.h"
#include "core/work_kind.h"

namespace orrery {

// A claim on a piece of work: which, who holds it and the token that proves it.
struct Claim {
  std::string id;  // the run's id, or the step attempt's dispatch id
  std::string claimed_by;
  std::string token;
  WorkKind kind = WorkKind::kLoopRun;
};

// The claim a running run is held by: its id, claimant and token.
inline Claim claim_of(const Run& run) { return {run.id, run.claimed_by, run.claim_token}; }

// How a piece of claimed work ended.
struct RunOutcome {
  RunStatus status = RunStatus::kSucceeded;  // a terminal status
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::string error;
  std::string stdout_tail;
  std::string stderr_tail;
  Usage usage;
  bool usage_limited = false;                 // the provider's limit stopped it (docs/execution.md)
  std::optional<TimeMs> usage_limited_until;  // when its account's cooldown ends
  // A step attempt's outputs, a JSON object of strings (docs/workflows.md,
  // "Values between steps"); a loop run has none.
  std::string outputs_json = "{}";
  // The goal the work was a turn of (docs/goals.md, "A turn"), the node it
  // was given and the update it left; goal_id empty: the store finds the
  // target's open goal itself (work that ended without its supervisor).
  std::string goal_id;
  std::string goal_node;
  std::optional<std::string> goal_update;
  std::string goal_update_error;  // why the update could not be read (empty: it could)
};

class ClaimLedger {
 public:
  virtual ~ClaimLedger() = default;

  // The supervisor started for a claim, recorded by whoever started it, so
  // that a supervisor which dies before it records anything is still
  // noticed (by pid and start time).
  virtual Status record_supervisor(const Claim& claim, const ProcessIdentity& supervisor,
                                   TimeMs now) = 0;
  // The target the supervisor started, its process group and the supervisor.
  virtual Status record_process(const Claim& claim, const ProcessIdentity& target,
                                std::optional<int> pgid, const ProcessIdentity& supervisor,
                                TimeMs now) = 0;
  // Extends the lease to now + lease_ms.
  virtual Status heartbeat_claim(const Claim& claim, DurationMs lease_ms, TimeMs now) = 0;
  // Stores the outcome (a terminal status other than skipped) and ends the
  // claim; in the same transaction, the turn of the goal the work served
  // (store/goal_book.h).
  virtual Status finish_claim(const Claim& claim, const RunOutcome& outcome, TimeMs now) = 0;
  // Records the outcome a supervisor kept because it could not finish
  // (docs/execution.md, "Recovery"): only while the work is still running
  // under `claim.token` and its lease has expired at `now` (the claimant is
  // not compared: whoever recovers it records it).
  virtual Status finish_expired_claim(const Claim& claim, const RunOutcome& outcome,
                                      TimeMs finished_at, TimeMs now) = 0;
};

}  // namespace orrery
