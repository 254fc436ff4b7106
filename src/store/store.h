// Store: the durable state of loops, runs and the daemon lease, behind one
// interface that every backend (SQLite now, PostgreSQL later) implements and
// that one conformance suite (tests/store/) checks.
//
// Invariants every backend keeps (docs/architecture.md, docs/storage.md):
// - a (loop, slot) pair has at most one run row; a claim changes it only from
//   absent, from an expired running lease whose supervisor is dead, or from a
//   retryable status with attempts left — never from succeeded or skipped;
// - heartbeat, record-process and finalize change exactly one row, and only
//   for the current claimant and claim token while its lease is live;
//   otherwise nothing changes and the caller learns it lost the claim;
// - a write given a daemon lease fence fails with "daemon lease lost" and
//   changes nothing when that lease is not live;
// - lease ids and claim tokens start with a generation that grows with every
//   acquisition, so a stale holder is recognisable and ordered.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/loop.h"
#include "core/result.h"
#include "core/retry_policy.h"  // kMaxFreeReattempts
#include "core/run.h"
#include "core/slot_plan.h"
#include "core/usage_limit.h"  // kMaxCooldownMs: the cap of every cooldown
#include "core/workflow.h"
#include "core/workflow_progress.h"

namespace orrery {

// Whether a recorded process is still the one that was recorded.
class ProcessProbe {
 public:
  virtual ~ProcessProbe() = default;
  virtual bool is_alive(const ProcessIdentity& process) const = 0;
  virtual std::string host_name() const = 0;
};

// The daemon lease a write is fenced by; empty: unfenced (CLI edits).
struct Fence {
  std::string daemon_lease_id;
};

struct LoopFilter {
  std::optional<LoopStatus> status;
  enum class Archived { kExclude, kInclude, kOnly } archived = Archived::kExclude;
  int limit = 1000;
  int offset = 0;  // rows skipped first, for paging (docs/cli.md)
};

struct RunFilter {
  std::optional<std::string> loop_id;
  std::optional<RunStatus> status;
  int limit = 100;
  int offset = 0;  // rows skipped first, for paging (docs/cli.md)
};

// A claim on a slot: who holds it and the token that proves it.
struct Claim {
  std::string run_id;
  std::string claimed_by;
  std::string token;
};

struct DueLoop {
  std::string id;
  TimeMs next_run_at = 0;
  friend bool operator==(const DueLoop&, const DueLoop&) = default;
};

struct SlotRequest {
  std::string loop_id;
  TimeMs slot = 0;
  // A manual run (`orrery trigger`) may be claimed for a paused loop; a
  // scheduled one may not (docs/storage.md, "Which loops can be claimed").
  bool manual = false;
};

struct ClaimedRun {
  Run run;
  Claim claim;
};

struct RunOutcome {
  RunStatus status = RunStatus::kSucceeded;  // a terminal status
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::string error;
  std::string stdout_tail;
  std::string stderr_tail;
  Usage usage;
  bool usage_limited = false;  // the provider's limit stopped it (docs/execution.md)
};

// A provider account waiting out a usage limit.
struct Cooldown {
  std::string account;  // provider, or provider:auth-profile
  TimeMs until_at = 0;
  int hits = 0;  // consecutive limits hit
  std::string reason;
  TimeMs updated_at = 0;
};

struct RecoveryOptions {
  int limit = 100;               // runs abandoned per call
  DurationMs grace_ms = 60'000;  // deferral while the supervisor lives
};

struct RecoveryResult {
  std::vector<Run> abandoned;
  std::vector<Run> deferred;
};

struct DaemonLease {
  std::string lease_id;
  std::int64_t generation = 0;
  ProcessIdentity holder;
  std::string host;
  TimeMs acquired_at = 0;
  TimeMs heartbeat_at = 0;
  TimeMs expires_at = 0;
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

// Running and queued runs, and what wakes the daemon next.
struct WakeTimes {
  std::optional<TimeMs> next_due;      // earliest next_run_at after `now` of a claimable loop
  std::optional<TimeMs> lease_expiry;  // earliest lease end of a running run
  std::optional<TimeMs> cooldown_end;  // earliest end of a cooldown in force
};

// Which parts of a loop a write replaces (docs/storage.md, "Loop versions").
struct LoopParts {
  bool config = false;  // name, description, schedule, target, policies
  bool state = false;   // ScheduleState
};

// Runs one claim_pending call takes at most.
inline constexpr int kMaxClaimBatch = 1000;

// A daemon as a runner of runs: what `orrery status` lists (docs/daemon.md,
// "Runners"). Every daemon registers itself and heartbeats its row.
// A runner not seen for a day is forgotten when another registers.
inline constexpr DurationMs kForgetRunnerMs = 86'400'000;

struct RunnerRecord {
  std::string id;  // the daemon's claimant: daemon@HOST:PID
  std::string host;
  std::string labels;  // canonical k=v,k=v (core/runner_labels.h)
  ProcessIdentity process;
  std::string home;  // its data directory: where the logs of its runs are
  TimeMs started_at = 0;
  TimeMs last_seen_at = 0;
  std::int64_t running = 0;  // its running runs (filled by list_runners)
};

struct PruneOptions {
  std::optional<DurationMs> older_than;  // terminal runs created before now - this
  std::optional<int> keep;               // beyond the newest N per loop
  bool dry_run = false;
  TimeMs now = 0;
};

struct PruneSummary {
  std::int64_t runs = 0;
  std::vector<std::string> run_ids;  // the runs deleted (none on a dry run)
};

// Workflow runs (docs/workflows.md, "Storage").
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

enum class ReserveAnswer { kReserved, kExisting, kBusy, kReclaimed };
const char* reserve_answer_name(ReserveAnswer answer);

struct Reservation {
  ReserveAnswer answer = ReserveAnswer::kReserved;
  // reserved, reclaimed: the new attempt; existing: the one with that
  // dispatch id; busy: the live attempt that holds the step.
  StepAttempt attempt;
  std::optional<StepAttempt> reclaimed;  // reclaimed: the previous attempt, now abandoned
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
};

class Store {
 public:
  virtual ~Store() = default;

  // Loops.
  virtual Status create_loop(const Loop& loop) = 0;
  virtual Result<std::optional<Loop>> get_loop(const std::string& id) = 0;
  // An id, an id prefix of at least 6 characters, or a name; ambiguity is a
  // conflict listing the candidates; nothing is not_found.
  virtual Result<Loop> resolve_loop(const std::string& text) = 0;
  virtual Result<std::vector<Loop>> list_loops(const LoopFilter& filter) = 0;
  virtual Result<std::int64_t> count_loops(const LoopFilter& filter) = 0;
  // Active, unarchived loops with next_run_at <= now, soonest first: only
  // what planning needs first (a covering-index read); load a loop with
  // get_loop when its slots are planned.
  virtual Result<std::vector<DueLoop>> due_loops(TimeMs now, int limit) = 0;
  // Replaces the given parts of the loop when each part's version still
  // equals the loop's (as read), bumping each version written; updated_at
  // becomes `now`. A moved version is a conflict ("changed while it was being
  // updated"), a missing loop not_found; nothing is written then.
  virtual Status update_loop_parts(const Loop& loop, LoopParts parts, const Fence& fence,
                                   TimeMs now) = 0;
  // Deletes the loop and its runs; returns the ids of the runs deleted (their
  // directories are the caller's to remove). Checks the database first. While
  // a run of the loop is running nothing is deleted: a conflict names the run
  // and its supervisor's pid (docs/storage.md, "Deleting a loop").
  virtual Result<std::vector<std::string>> delete_loop(const std::string& id) = 0;
  // Active loops whose expires_at has passed become expired. A claim of such
  // a loop expires it as well and is refused (docs/storage.md, "Expiry").
  virtual Result<int> expire_loops(TimeMs now, const Fence& fence) = 0;

  // Runs. A claim of a loop that is archived, expired or completed — or
  // paused, unless the request is manual — is refused: claim_slot says why
  // (a conflict), claim_slots leaves the slot out.
  virtual Result<std::vector<ClaimedRun>> claim_slots(const std::vector<SlotRequest>& slots,
                                                      const std::string& claimant, TimeMs now,
                                                      const Fence& fence) = 0;
  virtual Result<std::optional<ClaimedRun>> claim_slot(const SlotRequest& slot,
                                                       const std::string& claimant, TimeMs now,
                                                       const Fence& fence) = 0;
  // The supervisor started for a claim, recorded by whoever started it, so
  // that a supervisor which dies before it records anything is still noticed
  // (by pid and start time). Guarded like record_process.
  virtual Status record_supervisor(const Claim& claim, const ProcessIdentity& supervisor,
                                   TimeMs now) = 0;
  virtual Status record_process(const Claim& claim, const ProcessIdentity& target,
                                std::optional<int> pgid, const ProcessIdentity& supervisor,
                                TimeMs now) = 0;
  virtual Status heartbeat_run(const Claim& claim, DurationMs lease_ms, TimeMs now) = 0;
  virtual Status finalize_run(const Claim& claim, const RunOutcome& outcome, TimeMs now) = 0;
  // Records the outcome a supervisor kept in its run directory because it
  // could not finalize (docs/execution.md, "Recovery"): only while the run is
  // still running under `claim_token` and its lease has expired at `now`;
  // otherwise nothing changes and the result is a conflict.
  virtual Status finalize_expired_run(const std::string& run_id, const std::string& claim_token,
                                      const RunOutcome& outcome, TimeMs finished_at,
                                      TimeMs now) = 0;
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
  // Stops a run the caller cannot signal (its supervisor is on another host,
  // or it has none yet): a pending run becomes cancelled at once; a running
  // one gets a cancel request its runner acts on (running_cancel_requests).
  // Returns the run's status afterwards; not_found for no such run; a
  // finished run is left as it is.
  virtual Result<RunStatus> request_cancel(const std::string& run_id, const std::string& reason,
                                           TimeMs now) = 0;
  // The running runs of `claimant` someone asked to stop.
  virtual Result<std::vector<Run>> running_cancel_requests(const std::string& claimant) = 0;
  // Finished runs not yet settled (without tails), oldest finish first.
  virtual Result<std::vector<Run>> unsettled_runs(int limit) = 0;
  // Marks the run settled and gives its loop `state`, in one transaction,
  // when the run is finished and unsettled and the loop's state version is
  // still `state_version`; otherwise a conflict (an unknown run: not_found)
  // and nothing changes. A run whose loop is gone is simply marked settled.
  virtual Status settle_run(const std::string& run_id, std::int64_t state_version,
                            const ScheduleState& state, TimeMs now, const Fence& fence) = 0;
  // Running, queued and pending runs (without tails), oldest slot first.
  virtual Result<std::vector<Run>> active_runs(int limit) = 0;
  // Stores a running run's own choice of the delay to its loop's next slot
  // (`orrery run next-in`); a conflict when the run is not running, not_found
  // when there is no such run, a usage error for a delay outside 0 to
  // kMaxDynamicDelayMs (365 days). A new attempt of the slot clears it.
  virtual Status set_run_next_in(const std::string& run_id, DurationMs delay, TimeMs now) = 0;
  virtual Result<WakeTimes> wake_times(TimeMs now) = 0;
  virtual Result<Run> record_skipped(const Loop& loop, TimeMs slot, const std::string& reason,
                                     TimeMs now, const Fence& fence) = 0;
  virtual Result<std::optional<Run>> get_run(const std::string& id) = 0;
  virtual Result<std::optional<Run>> get_run_by_slot(const std::string& loop_id, TimeMs slot) = 0;
  // Newest first, without the output tails (stdout_tail and stderr_tail are
  // empty; get_run reads them).
  virtual Result<std::vector<Run>> list_runs(const RunFilter& filter) = 0;
  virtual Result<std::int64_t> count_runs(std::optional<RunStatus> status) = 0;
  // Runs matching the filter's loop and status (its limit and offset ignored).
  virtual Result<std::int64_t> count_matching_runs(const RunFilter& filter) = 0;
  // A run id or an id prefix of at least 6 characters: ambiguity is a
  // conflict listing the candidates, a shorter prefix a usage error, nothing
  // not_found.
  virtual Result<Run> resolve_run(const std::string& text) = 0;
  virtual Result<RecoveryResult> recover_expired_runs(TimeMs now, const RecoveryOptions& options,
                                                      const Fence& fence) = 0;
  // Checks the database first (a damaged one is refused, unchanged).
  virtual Result<PruneSummary> prune_runs(const PruneOptions& options) = 0;

  // Usage-limit cooldowns. Recording extends the account's cooldown to the
  // reset time, or to a default that grows with consecutive hits, never past
  // now + kMaxCooldownMs.
  virtual Result<Cooldown> record_cooldown(const std::string& account,
                                           std::optional<TimeMs> reset_at,
                                           const std::string& reason, TimeMs now) = 0;
  // Cooldowns still in force at `now`.
  virtual Result<std::vector<Cooldown>> active_cooldowns(TimeMs now) = 0;

  // Runners. Registering writes the runner's row (replacing one of the same
  // id) seen at `now`, and removes rows not seen for kForgetRunnerMs;
  // heartbeating moves last_seen_at (not_found when the row is gone, so the
  // runner registers again); list_runners gives every row, host then id.
  virtual Status register_runner(const RunnerRecord& runner, TimeMs now) = 0;
  virtual Status heartbeat_runner(const std::string& id, TimeMs now) = 0;
  virtual Status remove_runner(const std::string& id) = 0;
  virtual Result<std::vector<RunnerRecord>> list_runners() = 0;

  // Workflows (docs/workflows.md). Creating stores the spec as the next
  // version of its name (1 for a new name), atomically: two creations of one
  // name at once get two versions.
  virtual Result<Workflow> create_workflow(const WorkflowSpec& spec, const std::string& id,
                                           TimeMs now) = 0;
  virtual Result<std::optional<Workflow>> get_workflow(const std::string& id) = 0;
  // An id (that version), an id prefix of at least 6 characters, or a name
  // (its newest version, or `version`); a version that the id names
  // otherwise, or that the name does not have, is not_found; ambiguity a
  // conflict listing the candidates.
  virtual Result<Workflow> resolve_workflow(const std::string& text,
                                            std::optional<int> version) = 0;
  // By name; each name's newest version, or every version (then newest
  // version first within a name).
  virtual Result<std::vector<Workflow>> list_workflows(bool all_versions) = 0;

  // Workflow runs. Publishing writes the run, its steps and its `created`
  // event (sequence 1) in one transaction, with the hooks around the commit.
  // A run whose (workflow name, idempotency key) was published before is
  // not written again: that run is returned, existed = true.
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

  // The engine lease (docs/workflows.md, "One driver per run"). Acquiring
  // succeeds when the run is pending or running and no live lease is held
  // (none, released, or expired at `now`): a fresh token whose generation
  // is one more than the run's last; a pending run becomes running with
  // started_at = now. Another driver's live lease: nullopt, nothing
  // changes. A finished run: a conflict; no run: not_found.
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
  // Asks the run's driver to cancel it: cancel_requested set on a pending
  // or running run. The run as it is afterwards (a finished one unchanged);
  // not_found for no run.
  virtual Result<WorkflowRun> request_workflow_cancel(const std::string& run_id, TimeMs now) = 0;

  // A step attempt's supervisor: the same guards as the run methods above
  // (claimant, token, running, live lease), on the attempt `claim.run_id`
  // (its dispatch id). Finalizing stores the outcome and the step's outputs
  // (a JSON object of strings); the driver then advances the step.
  virtual Status record_attempt_supervisor(const Claim& claim, const ProcessIdentity& supervisor,
                                           TimeMs now) = 0;
  virtual Status record_attempt_process(const Claim& claim, const ProcessIdentity& target,
                                        std::optional<int> pgid, const ProcessIdentity& supervisor,
                                        TimeMs now) = 0;
  virtual Status heartbeat_attempt(const Claim& claim, DurationMs lease_ms, TimeMs now) = 0;
  virtual Status finalize_attempt(const Claim& claim, const RunOutcome& outcome,
                                  const std::string& outputs_json, TimeMs now) = 0;

  // The daemon lease.
  virtual Result<std::optional<DaemonLease>> acquire_daemon_lease(const ProcessIdentity& holder,
                                                                  DurationMs ttl_ms,
                                                                  TimeMs now) = 0;
  virtual Status heartbeat_daemon_lease(const std::string& lease_id, DurationMs ttl_ms,
                                        TimeMs now) = 0;
  virtual Status release_daemon_lease(const std::string& lease_id) = 0;
  virtual Result<std::optional<DaemonLease>> get_daemon_lease() = 0;
  virtual Status check_fence(const Fence& fence, TimeMs now) = 0;

  // Notices of other processes' writes (docs/daemon.md, "Runners"): on a
  // database server, a descriptor that becomes readable when a run is left
  // pending, a cancel is requested or a loop is changed, and the call that
  // reads those notices (true: some came). A backend without notices (a
  // SQLite file: its daemon is woken through its data directory) gives -1.
  virtual Result<int> listen_for_notices() { return -1; }
  virtual Result<bool> take_notices() { return false; }
};

}  // namespace orrery
