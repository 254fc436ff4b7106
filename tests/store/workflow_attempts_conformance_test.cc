// The Store conformance suite, step attempts (docs/workflows.md,
// "Attempts"): reserving answers reserved, existing, busy or reclaimed with
// their journal entries; attempts are append-only; a supervisor's writes
// hold only under the attempt's claim. Every backend must pass it.
#include "core/retry_policy.h"
#include "core/workflow_progress.h"
#include "store/workflow_conformance.h"

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)

using StepAttempts = WorkflowConformance;

// Finishes the running attempt's step through its driver: the attempt
// finalized, the step advanced to `to`.
void finish_step(Store& store, const EngineFence& fence, const StepAttempt& attempt,
                 RunStatus outcome_status, StepStatus to, TimeMs now) {
  RunOutcome outcome;
  outcome.status = outcome_status;
  outcome.exit_code = outcome_status == RunStatus::kSucceeded ? 0 : 1;
  ASSERT_TRUE(store.finish_claim(claim_of(attempt), outcome, now).ok());
  WorkflowAdvance advance;
  advance.steps = {{attempt.step_id, StepStatus::kRunning, to, std::nullopt, std::nullopt,
                    std::nullopt, std::nullopt}};
  ASSERT_TRUE(store.advance_workflow_run(fence, advance, now).ok());
}

TEST_P(StepAttempts, ReservingAPendingStepWritesARunningAttemptAndJournalsIt) {
  const WorkflowRun run = publish_steps({"a", "b"});
  const EngineFence fence = drive(run);
  const Reservation reservation = reserve(fence, run, "b", 1, kNow + 7);
  EXPECT_EQ(reservation.answer, ReserveAnswer::kReserved);
  EXPECT_FALSE(reservation.reclaimed.has_value());
  const StepAttempt& attempt = reservation.attempt;
  EXPECT_EQ(attempt.dispatch_id, dispatch_id(run.id, "b", 1));
  EXPECT_EQ(attempt.run_id, run.id);
  EXPECT_EQ(attempt.step_id, "b");
  EXPECT_EQ(attempt.attempt, 1);
  EXPECT_EQ(attempt.phase, "execute");
  EXPECT_EQ(attempt.status, RunStatus::kRunning);
  EXPECT_EQ(attempt.claimed_by, "drive@a:1");
  EXPECT_EQ(attempt.claim_token.substr(0, 3), "g1-");
  EXPECT_EQ(attempt.host, "host-a");
  EXPECT_EQ(attempt.lease_expires_at, kNow + 7 + kLease);
  EXPECT_EQ(attempt.started_at, kNow + 7);
  const StepRun step = step_now(run.id, "b");
  EXPECT_EQ(step.status, StepStatus::kRunning);
  EXPECT_EQ(step.attempts, 1);
  EXPECT_EQ(step.dispatch_id, attempt.dispatch_id);
  EXPECT_EQ(step.started_at, kNow + 7);
  EXPECT_EQ(step_now(run.id, "a").status, StepStatus::kPending);
  const auto journal = events(run.id);
  ASSERT_EQ(journal.size(), 2u);
  EXPECT_EQ(journal[1].sequence, 2);
  EXPECT_EQ(journal[1].event_type, "step_started");
  EXPECT_EQ(journal[1].step_id, "b");
  EXPECT_NE(journal[1].payload_json.find(attempt.dispatch_id), std::string::npos);
  EXPECT_NE(journal[1].payload_json.find("\"attempt\":1"), std::string::npos);
}

TEST_P(StepAttempts, TheSameDispatchIdAgainIsTheExistingAttemptAndAddsNothing) {
  const WorkflowRun run = publish_steps({"a", "b"});
  const EngineFence fence = drive(run);
  const StepAttempt first = reserve(fence, run, "a", 1).attempt;
  for (TimeMs at : {kNow + 1, kNow + kLease - 1, kNow + kLease + 5}) {
    // Past the attempt's lease too: the repeat is answered, never run twice.
    ASSERT_TRUE(store_->heartbeat_engine_lease(fence, kLease, at).ok());
    const Reservation again = reserve(fence, run, "a", 1, at);
    EXPECT_EQ(again.answer, ReserveAnswer::kExisting);
    EXPECT_EQ(again.attempt.dispatch_id, first.dispatch_id);
    EXPECT_EQ(again.attempt.claim_token, first.claim_token);
  }
  EXPECT_EQ(attempt_count(run.id), 1u);
  EXPECT_EQ(step_now(run.id, "a").attempts, 1);
  EXPECT_EQ(event_types(run.id), (std::vector<std::string>{"created", "step_started:a"}));
  // A finished attempt is existing too.
  const TimeMs later = kNow + kLease + 6;
  const StepAttempt second = reserve(fence, run, "b", 1, later).attempt;
  finish_step(*store_, fence, second, RunStatus::kSucceeded, StepStatus::kSucceeded, later + 1);
  const Reservation after = reserve(fence, run, "b", 1, later + 2);
  EXPECT_EQ(after.answer, ReserveAnswer::kExisting);
  EXPECT_EQ(after.attempt.status, RunStatus::kSucceeded);
  EXPECT_EQ(attempt_count(run.id), 2u);
}

TEST_P(StepAttempts, ALiveAttemptMakesTheStepBusy) {
  const WorkflowRun run = publish_steps({"a"});
  const EngineFence fence = drive(run);
  const StepAttempt first = reserve(fence, run, "a", 1).attempt;
  for (TimeMs at : {kNow, kNow + 1, kNow + kLease - 1}) {
    const Reservation busy = reserve(fence, run, "a", 2, at);
    EXPECT_EQ(busy.answer, ReserveAnswer::kBusy) << at;
    EXPECT_EQ(busy.attempt.dispatch_id, first.dispatch_id);
  }
  // A heartbeat keeps it busy past its first lease.
  ASSERT_TRUE(store_->heartbeat_claim(claim_of(first), kLease, kNow + kLease - 1).ok());
  ASSERT_TRUE(store_->heartbeat_engine_lease(fence, kLease, kNow + kLease - 1).ok());
  EXPECT_EQ(reserve(fence, run, "a", 2, kNow + kLease + 1).answer, ReserveAnswer::kBusy);
  EXPECT_EQ(attempt_count(run.id), 1u);
  EXPECT_EQ(event_types(run.id), (std::vector<std::string>{"created", "step_started:a"}));
}

TEST_P(StepAttempts, AnExpiredAttemptIsReclaimedAbandonedAndJournaledRecovered) {
  const WorkflowRun run = publish_steps({"a"}, 1);  // no retries: reclaiming is not one
  const EngineFence first_driver = drive(run);
  const StepAttempt first = reserve(first_driver, run, "a", 1).attempt;
  // A new driver after both leases ran out.
  const TimeMs later = kNow + kLease;
  const EngineFence fence = drive(run, "drive@b:2", later);
  const Reservation reclaimed = reserve(fence, run, "a", 2, later);
  EXPECT_EQ(reclaimed.answer, ReserveAnswer::kReclaimed);
  ASSERT_TRUE(reclaimed.reclaimed.has_value());
  EXPECT_EQ(reclaimed.reclaimed->dispatch_id, first.dispatch_id);
  EXPECT_EQ(reclaimed.reclaimed->status, RunStatus::kAbandoned);
  EXPECT_EQ(reclaimed.reclaimed->error, "lease expired");
  EXPECT_EQ(reclaimed.reclaimed->finished_at, later);
  EXPECT_EQ(reclaimed.attempt.dispatch_id, dispatch_id(run.id, "a", 2));
  EXPECT_EQ(reclaimed.attempt.attempt, 2);
  EXPECT_EQ(reclaimed.attempt.status, RunStatus::kRunning);
  EXPECT_EQ(reclaimed.attempt.claim_token.substr(0, 3), "g2-");
  const StepRun step = step_now(run.id, "a");
  EXPECT_EQ(step.attempts, 2);
  EXPECT_EQ(step.dispatch_id, reclaimed.attempt.dispatch_id);
  EXPECT_EQ(step.started_at, kNow);  // of the first attempt
  EXPECT_EQ(event_types(run.id), (std::vector<std::string>{"created", "step_started:a",
                                                           "recovered:a", "step_started:a"}));
  EXPECT_NE(events(run.id)[2].payload_json.find(first.dispatch_id), std::string::npos);
  // Both attempts stay, in order.
  const auto attempts = ok_value(store_->list_step_attempts(run.id));
  ASSERT_EQ(attempts.size(), 2u);
  EXPECT_EQ(attempts[0].status, RunStatus::kAbandoned);
  EXPECT_EQ(attempts[1].status, RunStatus::kRunning);
  // The first supervisor's writes are refused now.
  RunOutcome outcome;
  EXPECT_TRUE(is_conflict(finalize_attempt(claim_of(first), outcome, "{}", later + 1)));
}

TEST_P(StepAttempts, AHolderKnownDeadIsReclaimedBeforeItsLeaseRunsOut) {
  const WorkflowRun run = publish_steps({"a", "b"});
  const EngineFence fence = drive(run);
  reserve(fence, run, "a", 1);
  for (int attempt = 2; attempt <= 3; ++attempt) {
    const Reservation reclaimed = reserve(fence, run, "a", attempt, kNow + attempt, true);
    EXPECT_EQ(reclaimed.answer, ReserveAnswer::kReclaimed);
    ASSERT_TRUE(reclaimed.reclaimed.has_value());
    EXPECT_EQ(reclaimed.reclaimed->attempt, attempt - 1);
    EXPECT_EQ(reclaimed.reclaimed->error, "the attempt's supervisor died");
    EXPECT_EQ(reclaimed.attempt.attempt, attempt);
  }
  // holder_dead with no attempt running reserves plainly.
  EXPECT_EQ(reserve(fence, run, "b", 1, kNow + 5, true).answer, ReserveAnswer::kReserved);
  EXPECT_EQ(event_types(run.id),
            (std::vector<std::string>{"created", "step_started:a", "recovered:a", "step_started:a",
                                      "recovered:a", "step_started:a", "step_started:b"}));
}

TEST_P(StepAttempts, AStepWhoseSupervisorsKeepDyingIsExhaustedAfterItsFreeAttempts) {
  for (int max_attempts = 1; max_attempts <= 3; ++max_attempts) {
    SCOPED_TRACE(max_attempts);
    const WorkflowRun run = publish_steps({"a"}, max_attempts);
    const EngineFence fence = drive(run);
    reserve(fence, run, "a", 1);
    // Every attempt's supervisor dies: the first kMaxFreeReattempts
    // abandoned attempts are free, each later one counts.
    const int last = max_attempts + kMaxFreeReattempts;
    for (int attempt = 2; attempt <= last; ++attempt) {
      EXPECT_EQ(reserve(fence, run, "a", attempt, kNow + attempt, true).answer,
                ReserveAnswer::kReclaimed)
          << attempt;
    }
    const Reservation exhausted = reserve(fence, run, "a", last + 1, kNow + last + 1, true);
    EXPECT_EQ(exhausted.answer, ReserveAnswer::kExhausted);
    EXPECT_EQ(exhausted.attempt.attempt, last);
    EXPECT_EQ(exhausted.attempt.status, RunStatus::kAbandoned);
    EXPECT_EQ(exhausted.attempt.error, "the attempt's supervisor died");
    EXPECT_EQ(attempt_count(run.id), std::size_t(last));
    // The step waits for its driver to settle it with the abandoned attempt.
    const StepRun step = step_now(run.id, "a");
    EXPECT_EQ(step.status, StepStatus::kRunning);
    EXPECT_EQ(step.dispatch_id, exhausted.attempt.dispatch_id);
    auto settlement = settle_attempt(step, exhausted.attempt, false, kNow + last + 2);
    ASSERT_TRUE(settlement.ok());
    EXPECT_FALSE(settlement->retry);
    EXPECT_EQ(settlement->change.to, StepStatus::kFailed);
    EXPECT_TRUE(is_conflict(
        store_->reserve_step_attempt(fence, reserve_of(run, "a", last + 1), kNow + last + 3)));
  }
}

TEST_P(StepAttempts, RetriesTakeTheNextAttemptsUpToTheMaximum) {
  const WorkflowRun run = publish_steps({"a"}, 3);
  const EngineFence fence = drive(run);
  for (int attempt = 1; attempt <= 3; ++attempt) {
    const Reservation reserved = reserve(fence, run, "a", attempt, kNow + attempt);
    ASSERT_EQ(reserved.answer, ReserveAnswer::kReserved) << attempt;
    EXPECT_EQ(reserved.attempt.attempt, attempt);
    finish_step(*store_, fence, reserved.attempt, RunStatus::kFailed, StepStatus::kPending,
                kNow + attempt);
  }
  auto exhausted = store_->reserve_step_attempt(fence, reserve_of(run, "a", 4), kNow + 10);
  EXPECT_TRUE(is_conflict(exhausted));
  EXPECT_EQ(attempt_count(run.id), 3u);
}

TEST_P(StepAttempts, WrongRequestsAreConflictsAndChangeNothing) {
  const WorkflowRun run = publish_steps({"a", "b", "c"});
  const EngineFence fence = drive(run);
  const StepAttempt a = reserve(fence, run, "a", 1).attempt;
  finish_step(*store_, fence, a, RunStatus::kSucceeded, StepStatus::kSucceeded, kNow + 1);
  const std::size_t journal = events(run.id).size();
  // A finished step never runs again.
  EXPECT_TRUE(is_conflict(store_->reserve_step_attempt(fence, reserve_of(run, "a", 2), kNow + 2)));
  // A dispatch id that is not the next attempt's.
  for (int attempt : {0, 2, 5}) {
    EXPECT_TRUE(
        is_conflict(store_->reserve_step_attempt(fence, reserve_of(run, "b", attempt), kNow + 2)))
        << attempt;
  }
  StepReserve foreign = reserve_of(run, "c", 1);
  foreign.dispatch_id = a.dispatch_id;  // another step's
  EXPECT_TRUE(is_conflict(store_->reserve_step_attempt(fence, foreign, kNow + 2)));
  // A step whose attempt finished waits for the driver's advance.
  const StepAttempt c = reserve(fence, run, "c", 1).attempt;
  RunOutcome outcome;
  outcome.status = RunStatus::kFailed;
  ASSERT_TRUE(finalize_attempt(claim_of(c), outcome, "{}", kNow + 3).ok());
  EXPECT_TRUE(is_conflict(store_->reserve_step_attempt(fence, reserve_of(run, "c", 2), kNow + 4)));
  // An unknown step.
  EXPECT_TRUE(is_not_found(store_->reserve_step_attempt(fence, reserve_of(run, "zz", 1), kNow)));
  EXPECT_EQ(attempt_count(run.id), 2u);
  EXPECT_EQ(step_now(run.id, "b").status, StepStatus::kPending);
  EXPECT_EQ(events(run.id).size(), journal + 1);  // c's step_started only
}

TEST_P(StepAttempts, AReservationWithoutTheLiveEngineLeaseChangesNothing) {
  const WorkflowRun run = publish_steps({"a"});
  const EngineFence stale = drive(run);
  EngineFence forged = stale;
  forged.token = "g1-0123";
  EXPECT_TRUE(is_lease_lost(store_->reserve_step_attempt(forged, reserve_of(run, "a", 1), kNow)));
  const EngineFence current = drive(run, "drive@b:2", kNow + kLease);
  EXPECT_TRUE(
      is_lease_lost(store_->reserve_step_attempt(stale, reserve_of(run, "a", 1), kNow + kLease)));
  EXPECT_TRUE(is_lease_lost(
      store_->reserve_step_attempt(current, reserve_of(run, "a", 1), kNow + 3 * kLease)));
  EXPECT_EQ(attempt_count(run.id), 0u);
  EXPECT_EQ(step_now(run.id, "a").status, StepStatus::kPending);
  EXPECT_EQ(event_types(run.id), (std::vector<std::string>{"created"}));
}

TEST_P(StepAttempts, TheSupervisorRecordsItsProcessesAndFinalizesUnderTheClaim) {
  const WorkflowRun run = publish_steps({"a"});
  const EngineFence fence = drive(run);
  const StepAttempt attempt = reserve(fence, run, "a", 1).attempt;
  const Claim claim = claim_of(attempt);
  ASSERT_TRUE(store_->record_supervisor(claim, {4100, kNow - 5}, kNow + 1).ok());
  auto read = ok_value(store_->get_step_attempt(attempt.dispatch_id)).value();
  ASSERT_TRUE(read.supervisor.has_value());
  EXPECT_EQ(read.supervisor->pid, 4100);
  EXPECT_FALSE(read.target.has_value());
  ASSERT_TRUE(store_->record_process(claim, {4200, kNow}, 4200, {4100, kNow - 5}, kNow + 2).ok());
  ASSERT_TRUE(store_->heartbeat_claim(claim, kLease, kNow + 3).ok());
  read = ok_value(store_->get_step_attempt(attempt.dispatch_id)).value();
  ASSERT_TRUE(read.target.has_value());
  EXPECT_EQ(read.target->pid, 4200);
  EXPECT_EQ(read.target->started_at, kNow);
  EXPECT_EQ(read.pgid, 4200);
  EXPECT_EQ(read.lease_expires_at, kNow + 3 + kLease);

  RunOutcome outcome;
  outcome.status = RunStatus::kSucceeded;
  outcome.exit_code = 0;
  outcome.stdout_tail = "out\n";
  outcome.stderr_tail = "err\n";
  outcome.usage = {120, 45, 0.25};
  outcome.usage_limited = true;
  ASSERT_TRUE(finalize_attempt(claim, outcome, R"({"url":"x","n":"2"})", kNow + 4).ok());
  read = ok_value(store_->get_step_attempt(attempt.dispatch_id)).value();
  EXPECT_EQ(read.status, RunStatus::kSucceeded);
  EXPECT_EQ(read.exit_code, 0);
  EXPECT_EQ(read.finished_at, kNow + 4);
  EXPECT_EQ(read.stdout_tail, "out\n");
  EXPECT_EQ(read.stderr_tail, "err\n");
  EXPECT_EQ(read.outputs_json, R"({"url":"x","n":"2"})");
  EXPECT_EQ(read.usage.input_tokens, 120);
  EXPECT_EQ(read.usage.output_tokens, 45);
  EXPECT_EQ(read.usage.cost_usd, 0.25);
  EXPECT_TRUE(read.usage_limited);
  EXPECT_FALSE(read.lease_expires_at.has_value());
  // The tails come with the list too.
  EXPECT_EQ(ok_value(store_->list_step_attempts(run.id)).at(0).stdout_tail, "out\n");
  // Finalized: the claim holds no more.
  EXPECT_TRUE(is_conflict(store_->heartbeat_claim(claim, kLease, kNow + 5)));
  EXPECT_TRUE(is_conflict(finalize_attempt(claim, outcome, "{}", kNow + 5)));
}

TEST_P(StepAttempts, AWrongClaimOrAnExpiredLeaseChangesNothing) {
  const WorkflowRun run = publish_steps({"a"});
  const EngineFence fence = drive(run);
  const StepAttempt attempt = reserve(fence, run, "a", 1).attempt;
  std::vector<std::pair<Claim, TimeMs>> refused;
  Claim wrong = claim_of(attempt);
  wrong.token = "g1-000000";
  refused.push_back({wrong, kNow + 1});
  wrong = claim_of(attempt);
  wrong.claimed_by = "drive@b:2";
  refused.push_back({wrong, kNow + 1});
  wrong = claim_of(attempt);
  wrong.id = dispatch_id(run.id, "a", 2);
  refused.push_back({wrong, kNow + 1});
  refused.push_back({claim_of(attempt), kNow + kLease});      // expired
  refused.push_back({claim_of(attempt), kNow + 2 * kLease});  // long expired
  RunOutcome outcome;
  outcome.status = RunStatus::kSucceeded;
  for (const auto& [claim, at] : refused) {
    EXPECT_TRUE(is_conflict(store_->record_supervisor(claim, {1, kNow}, at)));
    EXPECT_TRUE(is_conflict(store_->record_process(claim, {2, kNow}, 2, {1, kNow}, at)));
    EXPECT_TRUE(is_conflict(store_->heartbeat_claim(claim, kLease, at)));
    EXPECT_TRUE(is_conflict(finalize_attempt(claim, outcome, "{}", at)));
  }
  const StepAttempt read = ok_value(store_->get_step_attempt(attempt.dispatch_id)).value();
  EXPECT_EQ(read.status, RunStatus::kRunning);
  EXPECT_FALSE(read.supervisor.has_value());
  EXPECT_FALSE(read.target.has_value());
  EXPECT_EQ(read.lease_expires_at, attempt.lease_expires_at);
  EXPECT_EQ(read.updated_at, attempt.updated_at);
}

TEST_P(StepAttempts, FinalizingRefusesBadOutputsAndNonFinalStatuses) {
  const WorkflowRun run = publish_steps({"a"});
  const EngineFence fence = drive(run);
  const StepAttempt attempt = reserve(fence, run, "a", 1).attempt;
  RunOutcome outcome;
  outcome.status = RunStatus::kSucceeded;
  for (std::string outputs : {"", "[]", "\"x\"", R"({"n":1})", R"({"a":{"b":"c"}})", "{"}) {
    const Status refused = finalize_attempt(claim_of(attempt), outcome, outputs, kNow + 1);
    ASSERT_FALSE(refused.ok()) << outputs;
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage) << outputs;
  }
  for (RunStatus status : {RunStatus::kRunning, RunStatus::kQueued, RunStatus::kSkipped}) {
    outcome.status = status;
    const Status refused = finalize_attempt(claim_of(attempt), outcome, "{}", kNow + 1);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
  }
  EXPECT_EQ(ok_value(store_->get_step_attempt(attempt.dispatch_id))->status, RunStatus::kRunning);
}

TEST_P(StepAttempts, AttemptsListInStepSequenceThenAttemptOrder) {
  const WorkflowRun run = publish_steps({"z", "y", "x"}, 3);
  const EngineFence fence = drive(run);
  // Reserved out of order: x, z (twice), y.
  const StepAttempt x1 = reserve(fence, run, "x", 1).attempt;
  const StepAttempt z1 = reserve(fence, run, "z", 1).attempt;
  finish_step(*store_, fence, z1, RunStatus::kFailed, StepStatus::kPending, kNow + 1);
  reserve(fence, run, "z", 2, kNow + 2);
  reserve(fence, run, "y", 1, kNow + 3);
  std::vector<std::string> order;
  for (const StepAttempt& attempt : ok_value(store_->list_step_attempts(run.id))) {
    order.push_back(attempt.step_id + std::to_string(attempt.attempt));
  }
  EXPECT_EQ(order, (std::vector<std::string>{"z1", "z2", "y1", "x1"}));
  EXPECT_FALSE(ok_value(store_->get_step_attempt(dispatch_id(run.id, "x", 2))).has_value());
  EXPECT_EQ(ok_value(store_->get_step_attempt(x1.dispatch_id))->step_id, "x");
}

INSTANTIATE_TEST_SUITE_P(Backends, StepAttempts, backends(), backend_name);

}  // namespace
}  // namespace orrery
