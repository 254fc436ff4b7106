// SlotClaims: turning a loop's due slots into claimed runs (docs/storage.md,
// "Claims", "Plan commits", "Settling a finished run"): the daemon's tick,
// a runner's claim of pending runs, a manual trigger, cancel requests,
// recovery of expired leases, and what wakes the daemon next. A claimed
// run's life after its claim is the claim ledger's (store/claim_ledger.h).
//
// Invariants every backend keeps:
// - a (loop, slot) pair has at most one run row; a claim changes it only from
//   absent, from an expired running lease whose supervisor is dead, or from a
//   retryable status with attempts left — never from succeeded or skipped;
// - every claim gets a fresh claim token whose generation grows, and a
//   lease from now;
// - a write given a fence (store/fence.h) changes nothing unless that
//   daemon lease is live.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/loop.h"
#include "core/result.h"
#include "core/run.h"
#include "core/slot_plan.h"
#include "store/claim_ledger.h"
#include "store/fence.h"

namespace orrery {

struct SlotRequest {
  std::string loop_id;
  TimeMs slot = 0;
  // A manual run (`orrery trigger`) may be claimed for a paused loop; a
  // scheduled one may not (docs/storage.md, "Which loops can be claimed").
  bool manual = false;
  // Left pending for any runner whose labels match the loop's --machine
  // selector (claim_pending) instead of claimed by the caller: the
  // ClaimedRun's run is then pending and its claim empty, and a notice
  // wakes the runners when it commits (docs/daemon.md, "Runners").
  bool to_runners = false;
};

struct ClaimedRun {
  Run run;
  Claim claim;
};

struct RecoveryOptions {
  int limit = 100;               // runs abandoned per call
  DurationMs grace_ms = 60'000;  // deferral while the supervisor lives
};

struct RecoveryResult {
  std::vector<Run> abandoned;
  std::vector<Run> deferred;
};

// One loop's part of a tick, committed atomically (docs/storage.md, "Plan
// commits"): like a write batch, all of it is written or none.
struct LoopPlanCommit {
  std::string loop_id;
  std::int64_t state_version = 0;    // as read; a loop whose version moved is left out
  std::vector<TimeMs> claim;         // slots to claim (new slots, a retry, queued rows)
  std::vector<TimeMs> queue;         // slots to hold as queued rows
  std::vector<SkippedSlot> skipped;  // slots to record skipped
  ScheduleState state;               // the loop's schedule state afterwards
  // The claims become pending rows that any runner whose labels match the
  // loop's --machine selector claims (claim_pending), instead of claims of
  // the committing daemon (docs/daemon.md, "Runners").
  bool to_runners = false;
};

struct LoopPlanResult {
  std::string loop_id;
  // False: the loop's state version moved (a CLI change, another writer) or
  // the loop is gone; nothing of this loop was written.
  bool applied = false;
  std::vector<ClaimedRun> claimed;  // the claims that succeeded (others: slot held or finished)
  std::vector<Run> pending;         // with to_runners: the slots left for runners instead
  std::vector<Run> queued;          // the queued rows written
  int skipped_inserted = 0;         // skipped rows written; the others were already there
};

// One finished run to settle, with the state its loop gets and the loop's
// state version that state was computed from.
struct Settlement {
  std::string run_id;
  std::int64_t state_version = 0;
  ScheduleState state;
};

// Running and queued runs, and what wakes the daemon next.
struct WakeTimes {
  std::optional<TimeMs> next_due;      // earliest next_run_at after `now` of a claimable loop
  std::optional<TimeMs> lease_expiry;  // earliest lease end of a running run
  std::optional<TimeMs> cooldown_end;  // earliest end of a cooldown in force
  std::optional<TimeMs> item_retry;    // earliest retry of a failed work item
};

// Runs one claim_pending call takes at most.
inline constexpr int kMaxClaimBatch = 1000;

class SlotClaims {
 public:
  virtual ~SlotClaims() = default;

  // A claim of a loop that is archived, expired or completed — or paused,
  // unless the request is manual — is refused: claim_slot says why (a
  // conflict), claim_slots leaves the slot out.
  virtual Result<std::vector<ClaimedRun>> claim_slots(const std::vector<SlotRequest>& slots,
                                                      const std::string& claimant, TimeMs now,
                                                      const Fence& fence) = 0;
  virtual Result<std::optional<ClaimedRun>> claim_slot(const SlotRequest& slot,
                                                       const std::string& claimant, TimeMs now,
                                                       const Fence& fence) = 0;
  // The daemon's tick: every loop's plan in one transaction, fenced. A loop
  // whose state version moved is left out (applied = false); the others are
  // written whole: the new schedule state with the state version bumped,
  // queued rows, skipped rows (inserted or already there), and claims
  // (scheduled runs, settled = false; a claimed queued row starts with
  // attempt 1), under the claim rules above. A slot to claim or queue whose
  // row cannot be taken (finished, or held by another claim) is handed to
  // settlement: that row becomes unsettled (docs/storage.md, "Plan commits").
  virtual Result<std::vector<LoopPlanResult>> commit_plans(const std::vector<LoopPlanCommit>& plans,
                                                           const std::string& claimant, TimeMs now,
                                                           const Fence& fence) = 0;
  // A runner's claim (docs/daemon.md, "Runners"): up to `limit` (at most
  // kMaxClaimBatch) pending runs, oldest slot first, whose loop is active,
  // unarchived and not past its expiry and whose --machine selector is within
  // `labels` (the stored form, core/runner_labels.h), become running under
  // `claimant` with a lease from now; in one statement, skipping rows another
  // runner is claiming at the same moment and rows whose loop another writer
  // holds (each claimed run's loop is held shared until the claim commits, as
  // by every claim). Unfenced: the pending status is the guard.
  virtual Result<std::vector<ClaimedRun>> claim_pending(const std::string& claimant,
                                                        const std::string& labels, int limit,
                                                        TimeMs now) = 0;
  virtual Result<Run> record_skipped(const Loop& loop, TimeMs slot, const std::string& reason,
                                     TimeMs now, const Fence& fence) = 0;
  // Finished runs not yet settled (without tails), oldest finish first.
  virtual Result<std::vector<Run>> unsettled_runs(int limit) = 0;
  // Settles each run of `settlements`, all in one transaction: a run is
  // marked settled and its loop given `state` when the run is finished and
  // unsettled and the loop's state version is still `state_version`;
  // otherwise that one is a conflict (an unknown run: not_found) and changes
  // nothing, while the others are settled. A run whose loop is gone is simply
  // marked settled. The outcomes are in the order given. A lost fence, or a
  // failure of the database, fails the whole batch and changes nothing.
  virtual Result<std::vector<Status>> settle_runs(const std::vector<Settlement>& settlements,
                                                  TimeMs now, const Fence& fence) = 0;
  // settle_runs of one run.
  Status settle_run(const std::string& run_id, std::int64_t state_version,
                    const ScheduleState& state, TimeMs now, const Fence& fence) {
    auto settled = settle_runs({Settlement{run_id, state_version, state}}, now, fence);
    if (!settled) return settled.error();
    return settled->front();
  }
  virtual Result<WakeTimes> wake_times(TimeMs now) = 0;
  // Stops a run the caller cannot signal (its supervisor is on another host,
  // or it has none yet): a pending or queued run becomes cancelled at once,
  // unsettled, so that a loop waiting for its slot moves on; a running one
  // gets a cancel request its runner acts on (running_cancel_requests).
  // Returns the run's status afterwards; not_found for no such run; a
  // finished run is left as it is.
  virtual Result<RunStatus> request_cancel(const std::string& run_id, const std::string& reason,
                                           TimeMs now) = 0;
  // The running runs of `claimant` someone asked to stop.
  virtual Result<std::vector<Run>> running_cancel_requests(const std::string& claimant) = 0;
  // Stores a running run's own choice of the delay to its loop's next slot
  // (`orrery run next-in`); a conflict when the run is not running, not_found
  // when there is no such run, a usage error for a delay outside 0 to
  // kMaxDynamicDelayMs (365 days). A new attempt of the slot clears it.
  virtual Status set_run_next_in(const std::string& run_id, DurationMs delay, TimeMs now) = 0;
  // Running runs whose lease expired: deferred by the grace while their
  // supervisor lives, otherwise abandoned (docs/execution.md, "Recovery").
  virtual Result<RecoveryResult> recover_expired_runs(TimeMs now, const RecoveryOptions& options,
                                                      const Fence& fence) = 0;
};

}  // namespace orrery
