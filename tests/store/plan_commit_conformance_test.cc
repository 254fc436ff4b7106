// The Store conformance suite, the daemon's part: plan commits, queued runs,
// settling finished runs, a run's next-in choice, active runs and wake-up
// times (docs/storage.md). Every backend must pass it unchanged.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "core/limits.h"
#include "core/run_settlement.h"
#include "store/store_conformance.h"

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)

class PlanCommitConformance : public StoreConformance {
 protected:
  // A plan that changes nothing of the loop as read.
  static LoopPlanCommit plan_for(const Loop& loop) {
    LoopPlanCommit plan;
    plan.loop_id = loop.id;
    plan.state_version = loop.state_version;
    plan.state = schedule_state(loop);
    return plan;
  }

  Loop loop_now(const Loop& loop) {
    auto read = store_->get_loop(loop.id);
    EXPECT_TRUE(read.ok() && read->has_value());
    return read.ok() && read->has_value() ? **read : Loop{};
  }

  std::vector<LoopPlanResult> commit(const std::vector<LoopPlanCommit>& plans, TimeMs now = kNow,
                                     const Fence& fence = {}) {
    auto results = store_->commit_plans(plans, "daemon", now, fence);
    EXPECT_TRUE(results.ok()) << (results ? "" : results.error().message);
    if (!results.ok()) return {};
    EXPECT_EQ(results->size(), plans.size());
    return *results;
  }

  std::int64_t runs_of(const Loop& loop) {
    auto count = store_->count_matching_runs(runs(loop.id));
    EXPECT_TRUE(count.ok());
    return count.ok() ? *count : -1;
  }

  // A finished run of the daemon: claimed through a plan, then finalized.
  orrery::Run daemon_run(const Loop& loop, TimeMs slot, RunStatus status, TimeMs finished) {
    LoopPlanCommit plan = plan_for(loop_now(loop));
    plan.claim = {slot};
    auto results = commit({plan}, finished - 1);
    EXPECT_EQ(results.size(), 1u);
    EXPECT_EQ(results.empty() ? 0u : results[0].claimed.size(), 1u);
    if (results.empty() || results[0].claimed.empty()) return {};
    finish(results[0].claimed[0].claim, status, finished);
    return run_at(loop, slot);
  }
};

// ---------------------------------------------------------------- plan commits

TEST_P(PlanCommitConformance, ACommitWritesTheWholePlanAndBumpsTheStateVersion) {
  const Loop loop = add_loop("planned");
  LoopPlanCommit plan = plan_for(loop);
  plan.claim = {kNow};
  plan.queue = {kNow + kMinute};
  plan.skipped = {{kNow - 2 * kMinute, SkipReason::kMissed},
                  {kNow - kMinute, SkipReason::kOverlap}};
  plan.state.next_run_at = kNow + 2 * kMinute;
  plan.state.missed_count = 2;
  const auto results = commit({plan}, kNow + 5);
  ASSERT_EQ(results.size(), 1u);
  const LoopPlanResult& result = results[0];
  EXPECT_EQ(result.loop_id, loop.id);
  EXPECT_TRUE(result.applied);
  ASSERT_EQ(result.claimed.size(), 1u);
  const ClaimedRun& claimed = result.claimed[0];
  EXPECT_EQ(claimed.run.scheduled_for, kNow);
  EXPECT_EQ(claimed.run.status, RunStatus::kRunning);
  EXPECT_EQ(claimed.run.attempt, 1);
  EXPECT_EQ(claimed.run.claimed_by, "daemon");
  EXPECT_EQ(claimed.run.lease_expires_at, kNow + 5 + kMinute);
  EXPECT_FALSE(claimed.run.settled);
  EXPECT_EQ(claimed.claim.token, claimed.run.claim_token);
  ASSERT_EQ(result.queued.size(), 1u);
  const orrery::Run& queued = result.queued[0];
  EXPECT_EQ(queued.scheduled_for, kNow + kMinute);
  EXPECT_EQ(queued.status, RunStatus::kQueued);
  EXPECT_EQ(queued.attempt, 1);
  EXPECT_EQ(queued.loop_name, "planned");
  EXPECT_FALSE(queued.started_at.has_value());
  EXPECT_FALSE(queued.finished_at.has_value());
  EXPECT_EQ(queued.claimed_by, "");
  EXPECT_EQ(queued.claim_token, "");
  EXPECT_EQ(result.skipped_inserted, 2);
  EXPECT_EQ(run_at(loop, kNow - 2 * kMinute).skip_reason, "missed");
  EXPECT_EQ(run_at(loop, kNow - kMinute).skip_reason, "overlap");
  EXPECT_EQ(run_at(loop, kNow - kMinute).status, RunStatus::kSkipped);
  EXPECT_EQ(run_at(loop, kNow - kMinute).finished_at, kNow + 5);
  const Loop after = loop_now(loop);
  EXPECT_EQ(schedule_state(after), plan.state);
  EXPECT_EQ(after.state_version, 2);
  EXPECT_EQ(after.config_version, 1);
  EXPECT_EQ(after.updated_at, kNow + 5);
  EXPECT_EQ(runs_of(loop), 4);
}

TEST_P(PlanCommitConformance, ALoopWhoseStateVersionMovedIsLeftOutWholeAndTheOthersAreWritten) {
  // Each way a loop's state can move between the daemon's read and its commit.
  const std::vector<std::pair<const char*, std::function<void(const Loop&)>>> movers = {
      {"paused by a user",
       [&](const Loop& loop) {
         Loop paused = loop;
         paused.status = LoopStatus::kPaused;
         ASSERT_TRUE(store_->update_loop_parts(paused, {.state = true}, {}, kNow).ok());
       }},
      {"committed by another tick", [&](const Loop& loop) { commit({plan_for(loop)}); }},
      {"settled by another writer",
       [&](const Loop& loop) {
         const orrery::Run run = daemon_run(loop, kNow - 10 * kMinute, RunStatus::kFailed, kNow);
         ASSERT_TRUE(
             store_
                 ->settle_run(run.id, loop_now(loop).state_version, schedule_state(loop), kNow, {})
                 .ok());
       }},
      {"deleted", [&](const Loop& loop) { ASSERT_TRUE(store_->delete_loop(loop.id).ok()); }},
  };
  for (const auto& [how, move] : movers) {
    SCOPED_TRACE(how);
    const Loop stale = add_loop(std::string("stale ") + how);
    const Loop other = add_loop(std::string("other ") + how);
    move(stale);
    const Loop before = store_->get_loop(stale.id)->value_or(Loop{});
    const std::int64_t runs_before = runs_of(stale);
    std::vector<LoopPlanCommit> plans = {plan_for(stale), plan_for(other)};
    for (LoopPlanCommit& plan : plans) {
      plan.claim = {kNow + kMinute};
      plan.queue = {kNow + 2 * kMinute};
      plan.skipped = {{kNow - 30 * kMinute, SkipReason::kMissed}};
      plan.state.next_run_at = kNow + 3 * kMinute;
      plan.state.missed_count = 1;
    }
    const auto results = commit(plans, kNow + 7);
    ASSERT_EQ(results.size(), 2u);
    EXPECT_FALSE(results[0].applied);
    EXPECT_TRUE(results[0].claimed.empty());
    EXPECT_TRUE(results[0].queued.empty());
    EXPECT_EQ(results[0].skipped_inserted, 0);
    EXPECT_EQ(runs_of(stale), runs_before);
    if (!before.id.empty()) expect_unchanged(stale.id, before);
    EXPECT_TRUE(results[1].applied);
    EXPECT_EQ(results[1].claimed.size(), 1u);
    EXPECT_EQ(results[1].queued.size(), 1u);
    EXPECT_EQ(results[1].skipped_inserted, 1);
    EXPECT_EQ(runs_of(other), 3);
    EXPECT_EQ(loop_now(other).next_run_at, kNow + 3 * kMinute);
  }
}

TEST_P(PlanCommitConformance, ReplayingACommittedPlanChangesNothingAndCountsNothingTwice) {
  const Loop loop = add_loop("replayed");
  LoopPlanCommit plan = plan_for(loop);
  plan.claim = {kNow};
  plan.queue = {kNow + kMinute};
  plan.skipped = {{kNow - kMinute, SkipReason::kMissed}};
  plan.state.missed_count = 3;
  plan.state.next_run_at = kNow + 2 * kMinute;
  ASSERT_TRUE(commit({plan})[0].applied);
  const Loop after_first = loop_now(loop);
  const std::int64_t rows = runs_of(loop);
  // The same plan again (a daemon that crashed before it learned the
  // outcome): its version is stale, nothing is written.
  const auto replay = commit({plan}, kNow + 1);
  EXPECT_FALSE(replay[0].applied);
  expect_unchanged(loop.id, after_first);
  EXPECT_EQ(runs_of(loop), rows);
  // Re-planned from the loop as it now is, with the same slots: every slot
  // already has its row; the missed count is a value, not a delta.
  LoopPlanCommit again = plan;
  again.state_version = after_first.state_version;
  const auto replanned = commit({again}, kNow + 2);
  ASSERT_TRUE(replanned[0].applied);
  EXPECT_TRUE(replanned[0].claimed.empty());
  EXPECT_TRUE(replanned[0].queued.empty());
  EXPECT_EQ(replanned[0].skipped_inserted, 0);
  EXPECT_EQ(runs_of(loop), rows);
  EXPECT_EQ(loop_now(loop).missed_count, 3);
  EXPECT_EQ(run_at(loop, kNow).attempt, 1);
  EXPECT_EQ(run_at(loop, kNow).status, RunStatus::kRunning);
}

TEST_P(PlanCommitConformance, ASkippedSlotIsInsertedOrAlreadyThereWhateverItsRow) {
  const Loop loop = add_loop("skips");
  finish(claim(loop, kNow).claim, RunStatus::kSucceeded);
  finish(claim(loop, kNow + kMinute).claim, RunStatus::kFailed);
  claim(loop, kNow + 2 * kMinute);  // running
  ASSERT_TRUE(store_->record_skipped(loop, kNow + 3 * kMinute, "missed", kNow, {}).ok());
  LoopPlanCommit queue = plan_for(loop);
  queue.queue = {kNow + 4 * kMinute};
  ASSERT_TRUE(commit({queue})[0].applied);
  LoopPlanCommit plan = plan_for(loop_now(loop));
  for (int i = 0; i <= 6; ++i) plan.skipped.push_back({kNow + i * kMinute, SkipReason::kOverlap});
  const auto results = commit({plan}, kNow + 9);
  ASSERT_TRUE(results[0].applied);
  EXPECT_EQ(results[0].skipped_inserted, 2);  // slots 5 and 6 only
  EXPECT_EQ(run_at(loop, kNow).status, RunStatus::kSucceeded);
  EXPECT_EQ(run_at(loop, kNow + kMinute).status, RunStatus::kFailed);
  EXPECT_EQ(run_at(loop, kNow + 2 * kMinute).status, RunStatus::kRunning);
  EXPECT_EQ(run_at(loop, kNow + 3 * kMinute).skip_reason, "missed");
  EXPECT_EQ(run_at(loop, kNow + 4 * kMinute).status, RunStatus::kQueued);
  EXPECT_EQ(run_at(loop, kNow + 5 * kMinute).skip_reason, "overlap");
  EXPECT_EQ(run_at(loop, kNow + 6 * kMinute).status, RunStatus::kSkipped);
  EXPECT_EQ(runs_of(loop), 7);
}

TEST_P(PlanCommitConformance, AClaimThatFindsItsSlotHeldOrFinishedIsLeftOut) {
  const Loop loop = add_loop("held");
  finish(claim(loop, kNow).claim, RunStatus::kSucceeded);
  claim(loop, kNow + kMinute);  // running, live lease
  ASSERT_TRUE(store_->record_skipped(loop, kNow + 2 * kMinute, "overlap", kNow, {}).ok());
  LoopPlanCommit plan = plan_for(loop);
  plan.claim = {kNow, kNow + kMinute, kNow + 2 * kMinute, kNow + 3 * kMinute};
  const auto results = commit({plan}, kNow + 1);
  ASSERT_TRUE(results[0].applied);
  ASSERT_EQ(results[0].claimed.size(), 1u);
  EXPECT_EQ(results[0].claimed[0].run.scheduled_for, kNow + 3 * kMinute);
  EXPECT_EQ(run_at(loop, kNow + kMinute).claimed_by, "runner-a");
}

// A slot a plan meant to start but found taken (a finished or running row of
// another claim, a retry no longer allowed) is handed to settlement: its
// row is unsettled, so that settling it gives the loop what the slot's
// finish implies, and a loop waiting for that slot is never left waiting.
TEST_P(PlanCommitConformance, ASlotAPlanFoundTakenIsHandedToSettlement) {
  Loop loop = make_loop("taken");
  loop.max_attempts = 1;
  ASSERT_TRUE(store_->create_loop(loop).ok());
  finish(claim(loop, kNow).claim, RunStatus::kSucceeded);
  finish(claim(loop, kNow + kMinute).claim, RunStatus::kFailed);  // no attempt left
  const ClaimedRun running = claim(loop, kNow + 2 * kMinute);
  ASSERT_TRUE(store_->record_skipped(loop, kNow + 3 * kMinute, "overlap", kNow, {}).ok());
  ASSERT_TRUE(store_->unsettled_runs(100)->empty());
  LoopPlanCommit plan = plan_for(loop);
  plan.claim = {kNow, kNow + kMinute, kNow + 2 * kMinute};
  plan.queue = {kNow + 3 * kMinute};
  plan.state.next_run_at.reset();  // a fixed-delay loop waits for its slot to be settled
  const auto results = commit({plan}, kNow + 2000);
  ASSERT_TRUE(results[0].applied);
  EXPECT_TRUE(results[0].claimed.empty());
  EXPECT_TRUE(results[0].queued.empty());
  for (TimeMs slot : {kNow, kNow + kMinute, kNow + 2 * kMinute, kNow + 3 * kMinute}) {
    SCOPED_TRACE(slot);
    EXPECT_FALSE(run_at(loop, slot).settled);
  }
  auto listed = store_->unsettled_runs(100);
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  std::vector<TimeMs> unsettled;
  for (const orrery::Run& run : *listed) unsettled.push_back(run.scheduled_for);
  std::sort(unsettled.begin(), unsettled.end());
  EXPECT_EQ(unsettled, (std::vector<TimeMs>{kNow, kNow + kMinute, kNow + 3 * kMinute}));
  // The running one waits to be settled once it finishes; its claim holds.
  EXPECT_EQ(run_at(loop, kNow + 2 * kMinute).claim_token, running.claim.token);
  finish(running.claim, RunStatus::kSucceeded, kNow + 3000);
  EXPECT_EQ(store_->unsettled_runs(100)->size(), 4u);
}

TEST_P(PlanCommitConformance, AFixedDelayLoopWhoseSlotWasTakenGetsItsNextSlotWhenSettled) {
  Loop loop = make_loop("fixed delay");
  loop.schedule.anchor = IntervalAnchor::kFixedDelay;
  ASSERT_TRUE(store_->create_loop(loop).ok());
  // A manual run of the very slot the daemon plans next.
  const TimeMs slot = *loop.next_run_at;
  finish(claim(loop, slot).claim, RunStatus::kSucceeded, kNow + 5000);
  LoopPlanCommit plan = plan_for(loop);
  plan.claim = {slot};
  plan.state.next_run_at.reset();
  ASSERT_TRUE(commit({plan}, slot)[0].claimed.empty());
  auto unsettled = store_->unsettled_runs(10);
  ASSERT_TRUE(unsettled.ok());
  ASSERT_EQ(unsettled->size(), 1u);
  const Loop waiting = loop_now(loop);
  EXPECT_FALSE(waiting.next_run_at.has_value());
  auto series = SlotSeries::compile(waiting.schedule, waiting.id);
  ASSERT_TRUE(series.ok());
  auto state = settle_finished_run(waiting, *series, unsettled->front(), SettleInput{slot, {}, 0});
  ASSERT_TRUE(state.ok()) << state.error().message;
  ASSERT_TRUE(
      store_->settle_run(unsettled->front().id, waiting.state_version, *state, slot, {}).ok());
  EXPECT_EQ(loop_now(loop).next_run_at, kNow + 5000 + kMinute);
}

TEST_P(PlanCommitConformance, ClaimsOfAPlanFollowTheLoopsRefusalRules) {
  struct Case {
    const char* name;
    LoopStatus status;
    bool archived;
  };
  for (const Case& c :
       {Case{"paused", LoopStatus::kPaused, false}, Case{"archived", LoopStatus::kPaused, true},
        Case{"completed", LoopStatus::kCompleted, false},
        Case{"expired", LoopStatus::kExpired, false}}) {
    SCOPED_TRACE(c.name);
    Loop loop = make_loop(c.name);
    loop.status = c.status;
    loop.archived = c.archived;
    ASSERT_TRUE(store_->create_loop(loop).ok());
    LoopPlanCommit plan = plan_for(loop);
    plan.claim = {kNow};
    const auto results = commit({plan});
    EXPECT_TRUE(results[0].applied);  // the state is written; the claim is refused
    EXPECT_TRUE(results[0].claimed.empty());
    EXPECT_FALSE(store_->get_run_by_slot(loop.id, kNow)->has_value());
  }
}

// ---------------------------------------------------------------- queued runs

TEST_P(PlanCommitConformance, AClaimOfAQueuedRowStartsItAsItsFirstAttempt) {
  const Loop loop = add_loop("queue");
  LoopPlanCommit plan = plan_for(loop);
  plan.queue = {kNow, kNow + kMinute};
  const auto queued = commit({plan});
  ASSERT_EQ(queued[0].queued.size(), 2u);
  // The daemon starts the first (unsettled)...
  LoopPlanCommit start = plan_for(loop_now(loop));
  start.claim = {kNow};
  const auto started = commit({start}, kNow + 30);
  ASSERT_EQ(started[0].claimed.size(), 1u);
  const orrery::Run& run = started[0].claimed[0].run;
  EXPECT_EQ(run.id, queued[0].queued[0].id);
  EXPECT_EQ(run.status, RunStatus::kRunning);
  EXPECT_EQ(run.attempt, 1);
  EXPECT_EQ(run.free_reattempts, 0);
  EXPECT_EQ(run.started_at, kNow + 30);
  EXPECT_EQ(run.claimed_by, "daemon");
  EXPECT_FALSE(run.claim_token.empty());
  EXPECT_EQ(run.lease_expires_at, kNow + 30 + kMinute);
  EXPECT_FALSE(run.settled);
  // ...a manual claim starts the second, and the claim holds. A queued row
  // is a slot the daemon planned: whoever starts it, its finish is settled
  // (a fixed-delay loop that queued it waits for it to get its next slot).
  const ClaimedRun manual = claim(loop, kNow + kMinute, "trigger", kNow + 40);
  EXPECT_EQ(manual.run.id, queued[0].queued[1].id);
  EXPECT_EQ(manual.run.attempt, 1);
  EXPECT_FALSE(manual.run.settled);
  EXPECT_TRUE(store_->heartbeat_claim(manual.claim, kMinute, kNow + 41).ok());
  finish(manual.claim, RunStatus::kSucceeded, kNow + 42);
  auto unsettled = store_->unsettled_runs(10);
  ASSERT_TRUE(unsettled.ok()) << unsettled.error().message;
  ASSERT_EQ(unsettled->size(), 1u);
  EXPECT_EQ(unsettled->front().id, manual.run.id);
  // A started row is not started again.
  EXPECT_FALSE(claimable(loop, kNow, kNow + 50));
}

TEST_P(PlanCommitConformance, CancellingAQueuedRowFinishesItUnsettledAndNothingStartsIt) {
  const Loop loop = add_loop("queue");
  LoopPlanCommit plan = plan_for(loop);
  plan.queue = {kNow};
  const auto queued = commit({plan});
  ASSERT_EQ(queued[0].queued.size(), 1u);
  auto status = store_->request_cancel(queued[0].queued[0].id, "not needed", kNow + 5);
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(*status, RunStatus::kCancelled);
  const orrery::Run cancelled = run_at(loop, kNow);
  EXPECT_EQ(cancelled.status, RunStatus::kCancelled);
  EXPECT_EQ(cancelled.error, "not needed");
  EXPECT_EQ(cancelled.finished_at, kNow + 5);
  // Unsettled: a loop that waits for the slot gets what its finish implies.
  auto unsettled = store_->unsettled_runs(10);
  ASSERT_TRUE(unsettled.ok()) << unsettled.error().message;
  ASSERT_EQ(unsettled->size(), 1u);
  EXPECT_EQ(unsettled->front().id, cancelled.id);
  EXPECT_FALSE(claimable(loop, kNow, kNow + 10));
  // Asking again leaves it as it is.
  auto again = store_->request_cancel(cancelled.id, "again", kNow + 20);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, RunStatus::kCancelled);
  EXPECT_EQ(run_at(loop, kNow).error, "not needed");
}

TEST_P(PlanCommitConformance, ActiveRunsAreTheRunningAndQueuedOnesOldestSlotFirst) {
  const Loop a = add_loop("a");
  const Loop b = add_loop("b");
  finish(claim(a, kNow - 5 * kMinute).claim, RunStatus::kSucceeded);
  ASSERT_TRUE(store_->record_skipped(a, kNow - 4 * kMinute, "missed", kNow, {}).ok());
  claim(b, kNow - 3 * kMinute);
  LoopPlanCommit plan = plan_for(a);
  plan.queue = {kNow + kMinute};
  plan.claim = {kNow - kMinute};
  commit({plan});
  auto active = store_->active_runs(100);
  ASSERT_TRUE(active.ok()) << active.error().message;
  std::vector<std::pair<std::string, TimeMs>> got;
  for (const orrery::Run& run : *active) got.emplace_back(run.loop_id, run.scheduled_for);
  const std::vector<std::pair<std::string, TimeMs>> expected = {
      {b.id, kNow - 3 * kMinute}, {a.id, kNow - kMinute}, {a.id, kNow + kMinute}};
  EXPECT_EQ(got, expected);
  EXPECT_EQ(store_->active_runs(2)->size(), 2u);
}

TEST_P(PlanCommitConformance, ExpiryTurnsALoopsQueuedRowsSkippedAndBumpsItsStateVersion) {
  // By expire_loops, and by a claim that finds the loop past its expiry.
  for (const bool by_claim : {false, true}) {
    SCOPED_TRACE(by_claim ? "by a claim" : "by expire_loops");
    Loop loop = make_loop(by_claim ? "claimed late" : "expired late");
    loop.expires_at = kNow + 10 * kMinute;
    ASSERT_TRUE(store_->create_loop(loop).ok());
    LoopPlanCommit plan = plan_for(loop);
    plan.queue = {kNow + kMinute, kNow + 2 * kMinute};
    ASSERT_EQ(commit({plan})[0].queued.size(), 2u);
    const TimeMs late = kNow + 10 * kMinute;
    if (by_claim) {
      LoopPlanCommit start = plan_for(loop_now(loop));
      start.claim = {kNow + kMinute};
      const auto results = commit({start}, late);
      EXPECT_TRUE(results[0].claimed.empty());
    } else {
      ASSERT_EQ(*store_->expire_loops(late, {}), 1);
    }
    const Loop after = loop_now(loop);
    EXPECT_EQ(after.status, LoopStatus::kExpired);
    EXPECT_EQ(after.state_version, by_claim ? 4 : 3);
    for (TimeMs slot : {kNow + kMinute, kNow + 2 * kMinute}) {
      const orrery::Run run = run_at(loop, slot);
      EXPECT_EQ(run.status, RunStatus::kSkipped);
      EXPECT_EQ(run.skip_reason, "expired");
      EXPECT_EQ(run.finished_at, late);
      EXPECT_EQ(run.attempt, 1);
      EXPECT_TRUE(run.settled);
    }
  }
}

TEST_P(PlanCommitConformance, DeletingALoopDeletesItsQueuedRowsAndPruningKeepsThem) {
  const Loop pruned = add_loop("pruned");
  const Loop deleted = add_loop("deleted");
  for (const Loop& loop : {pruned, deleted}) {
    LoopPlanCommit plan = plan_for(loop);
    plan.queue = {kNow + kMinute};
    plan.skipped = {{kNow - kMinute, SkipReason::kMissed}};
    commit({plan});
  }
  auto summary = store_->prune_runs(prune(std::nullopt, 0, false, kNow + 86'400'000));
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->runs, 2);  // the two skipped rows
  EXPECT_EQ(run_at(pruned, kNow + kMinute).status, RunStatus::kQueued);
  auto removed = store_->delete_loop(deleted.id);
  ASSERT_TRUE(removed.ok()) << removed.error().message;
  EXPECT_EQ(removed->size(), 1u);
  EXPECT_EQ(*store_->count_runs(RunStatus::kQueued), 1);
}

// ---------------------------------------------------------------- settling

TEST_P(PlanCommitConformance, OnlyTheDaemonsPlannedRunsWaitToBeSettledOldestFinishFirst) {
  const Loop loop = add_loop("settling");
  const orrery::Run late = daemon_run(loop, kNow, RunStatus::kSucceeded, kNow + 3000);
  const orrery::Run early = daemon_run(loop, kNow + kMinute, RunStatus::kFailed, kNow + 2000);
  const orrery::Run cancelled =
      daemon_run(loop, kNow + 2 * kMinute, RunStatus::kCancelled, kNow + 4000);
  EXPECT_FALSE(late.settled);
  // Manual claims (claim_slot, claim_slots) are settled from the start.
  finish(claim(loop, kNow + 3 * kMinute).claim, RunStatus::kFailed);
  auto batch = store_->claim_slots({{loop.id, kNow + 4 * kMinute}}, "d", kNow, {});
  ASSERT_EQ(batch->size(), 1u);
  EXPECT_TRUE(batch->front().run.settled);
  finish(batch->front().claim, RunStatus::kSucceeded);
  // A running daemon run is not finished, so not listed.
  LoopPlanCommit running = plan_for(loop_now(loop));
  running.claim = {kNow + 5 * kMinute};
  ASSERT_EQ(commit({running})[0].claimed.size(), 1u);
  auto unsettled = store_->unsettled_runs(100);
  ASSERT_TRUE(unsettled.ok()) << unsettled.error().message;
  std::vector<std::string> ids;
  for (const orrery::Run& run : *unsettled) ids.push_back(run.id);
  EXPECT_EQ(ids, (std::vector<std::string>{early.id, late.id, cancelled.id}));
  EXPECT_EQ(store_->unsettled_runs(1)->size(), 1u);
  // Settling one takes it off the list and gives the loop its state.
  ScheduleState state = schedule_state(loop_now(loop));
  state.retry_scheduled_for = kNow + kMinute;
  state.next_run_at = kNow + 10 * kMinute;
  ASSERT_TRUE(
      store_->settle_run(early.id, loop_now(loop).state_version, state, kNow + 5000, {}).ok());
  EXPECT_TRUE(run_at(loop, kNow + kMinute).settled);
  EXPECT_EQ(schedule_state(loop_now(loop)), state);
  EXPECT_EQ(store_->unsettled_runs(100)->size(), 2u);
}

TEST_P(PlanCommitConformance, ARunIsSettledOnlyOnceAndOnlyWhenFinished) {
  const Loop loop = add_loop("once");
  const orrery::Run done = daemon_run(loop, kNow, RunStatus::kSucceeded, kNow + 1000);
  const Loop read = loop_now(loop);
  ASSERT_TRUE(store_->settle_run(done.id, read.state_version, schedule_state(read), kNow, {}).ok());
  const Loop after = loop_now(loop);
  EXPECT_EQ(after.state_version, read.state_version + 1);
  // Again: a conflict, nothing written.
  auto again = store_->settle_run(done.id, after.state_version, schedule_state(after), kNow, {});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, ErrorCode::kConflict);
  expect_unchanged(loop.id, after);
  // Running, queued, and manual (settled) runs are not settled either.
  LoopPlanCommit plan = plan_for(after);
  plan.claim = {kNow + kMinute};
  plan.queue = {kNow + 2 * kMinute};
  commit({plan});
  const ClaimedRun manual = claim(loop, kNow + 3 * kMinute);
  finish(manual.claim, RunStatus::kFailed);
  const Loop current = loop_now(loop);
  for (TimeMs slot : {kNow + kMinute, kNow + 2 * kMinute, kNow + 3 * kMinute}) {
    SCOPED_TRACE(slot);
    auto refused = store_->settle_run(run_at(loop, slot).id, current.state_version,
                                      schedule_state(current), kNow, {});
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  }
  expect_unchanged(loop.id, current);
  EXPECT_EQ(store_
                ->settle_run("0000000000000000000000000000dead", current.state_version,
                             schedule_state(current), kNow, {})
                .error()
                .code,
            ErrorCode::kNotFound);
}

TEST_P(PlanCommitConformance, SettlingOnAMovedStateVersionIsAConflictAndChangesNothing) {
  const Loop loop = add_loop("moved");
  const orrery::Run run = daemon_run(loop, kNow, RunStatus::kFailed, kNow + 1000);
  const Loop read = loop_now(loop);
  // A pause between the daemon's read and its settlement.
  Loop paused = read;
  paused.status = LoopStatus::kPaused;
  ASSERT_TRUE(store_->update_loop_parts(paused, {.state = true}, {}, kNow + 2000).ok());
  const Loop after_pause = loop_now(loop);
  ScheduleState retry = schedule_state(read);
  retry.retry_scheduled_for = kNow;
  auto refused = store_->settle_run(run.id, read.state_version, retry, kNow + 3000, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  EXPECT_NE(refused.error().message.find("loop moved changed"), std::string::npos)
      << refused.error().message;
  EXPECT_FALSE(run_at(loop, kNow).settled);
  expect_unchanged(loop.id, after_pause);
  // Re-read, it settles.
  ScheduleState paused_state = schedule_state(after_pause);
  ASSERT_TRUE(
      store_->settle_run(run.id, after_pause.state_version, paused_state, kNow + 4000, {}).ok());
  EXPECT_TRUE(run_at(loop, kNow).settled);
}

// A batch settles its runs in one transaction, each by its own guard: one
// whose loop moved, one already settled and one unknown change nothing, and
// every other run of the batch is settled with its loop's state.
TEST_P(PlanCommitConformance, ABatchSettlesEachRunByItsOwnGuardInOneTransaction) {
  std::vector<Loop> loops;
  std::vector<orrery::Run> runs;
  for (int i = 0; i < 6; ++i) {
    loops.push_back(add_loop("batch" + std::to_string(i)));
    runs.push_back(daemon_run(loops.back(), kNow, RunStatus::kFailed, kNow + 1000));
  }
  std::vector<Loop> read;
  for (const Loop& loop : loops) read.push_back(loop_now(loop));
  // Loop 1 moves after the read; run 2 is settled before the batch.
  Loop paused = read[1];
  paused.status = LoopStatus::kPaused;
  ASSERT_TRUE(store_->update_loop_parts(paused, {.state = true}, {}, kNow + 2000).ok());
  ASSERT_TRUE(
      store_->settle_run(runs[2].id, read[2].state_version, schedule_state(read[2]), kNow, {})
          .ok());
  const Loop moved = loop_now(loops[1]), settled_before = loop_now(loops[2]);
  std::vector<Settlement> batch;
  for (size_t i = 0; i < loops.size(); ++i) {
    ScheduleState state = schedule_state(read[i]);
    state.next_run_at = kNow + TimeMs(i + 1) * kMinute;
    batch.push_back({runs[i].id, read[i].state_version, state});
  }
  batch.push_back({"0000000000000000000000000000dead", 0, {}});
  auto outcomes = store_->settle_runs(batch, kNow + 3000, {});
  ASSERT_TRUE(outcomes.ok()) << outcomes.error().message;
  ASSERT_EQ(outcomes->size(), batch.size());
  for (size_t i = 0; i < loops.size(); ++i) {
    SCOPED_TRACE(i);
    if (i == 1 || i == 2) {
      ASSERT_FALSE((*outcomes)[i].ok());
      EXPECT_EQ((*outcomes)[i].error().code, ErrorCode::kConflict);
      continue;
    }
    EXPECT_TRUE((*outcomes)[i].ok()) << (*outcomes)[i].error().message;
    EXPECT_TRUE(run_at(loops[i], kNow).settled);
    EXPECT_EQ(loop_now(loops[i]).next_run_at, kNow + TimeMs(i + 1) * kMinute);
    EXPECT_EQ(loop_now(loops[i]).state_version, read[i].state_version + 1);
  }
  EXPECT_NE((*outcomes)[1].error().message.find("loop batch1 changed"), std::string::npos)
      << (*outcomes)[1].error().message;
  EXPECT_FALSE(run_at(loops[1], kNow).settled);
  expect_unchanged(loops[1].id, moved);
  expect_unchanged(loops[2].id, settled_before);
  ASSERT_FALSE(outcomes->back().ok());
  EXPECT_EQ(outcomes->back().error().code, ErrorCode::kNotFound);
  EXPECT_TRUE(store_->settle_runs({}, kNow, {})->empty());
}

TEST_P(PlanCommitConformance, AReattemptOfAnUnsettledSlotKeepsItUnsettled) {
  const Loop loop = add_loop("reattempt");
  daemon_run(loop, kNow, RunStatus::kFailed, kNow + 1000);
  // A manual retry of the slot before the daemon settled it: its effect on
  // the loop is still to be applied once it finishes.
  const ClaimedRun manual = claim(loop, kNow, "trigger", kNow + 2000);
  EXPECT_EQ(manual.run.attempt, 2);
  EXPECT_FALSE(manual.run.settled);
  finish(manual.claim, RunStatus::kSucceeded, kNow + 3000);
  ASSERT_EQ(store_->unsettled_runs(10)->size(), 1u);
}

// ---------------------------------------------------------------- the two parts of a loop

TEST_P(PlanCommitConformance, ARenameAndACommitNeverConflict) {
  const Loop loop = add_loop("before");
  // The daemon read the loop; a user renames it; the daemon commits.
  LoopPlanCommit plan = plan_for(loop);
  plan.claim = {kNow};
  plan.state.next_run_at = kNow + kMinute;
  Loop renamed = loop;
  renamed.name = "after";
  ASSERT_TRUE(store_->update_loop_parts(renamed, {.config = true}, {}, kNow).ok());
  const auto results = commit({plan}, kNow + 1);
  EXPECT_TRUE(results[0].applied);
  EXPECT_EQ(results[0].claimed.size(), 1u);
  // The other way: the user read the loop, the daemon commits, the rename lands.
  const Loop read = loop_now(loop);
  LoopPlanCommit next = plan_for(read);
  next.state.next_run_at = kNow + 2 * kMinute;
  ASSERT_TRUE(commit({next}, kNow + 2)[0].applied);
  Loop again = read;
  again.name = "again";
  ASSERT_TRUE(store_->update_loop_parts(again, {.config = true}, {}, kNow + 3).ok());
  const Loop after = loop_now(loop);
  EXPECT_EQ(after.name, "again");
  EXPECT_EQ(after.next_run_at, kNow + 2 * kMinute);
  EXPECT_EQ(after.config_version, 3);
  EXPECT_EQ(after.state_version, 3);
  // A settlement does not conflict with a rename either.
  const orrery::Run run = daemon_run(loop, kNow + 5 * kMinute, RunStatus::kFailed, kNow + 4);
  const Loop before_settle = loop_now(loop);
  Loop third = before_settle;
  third.name = "third";
  ASSERT_TRUE(store_->update_loop_parts(third, {.config = true}, {}, kNow + 5).ok());
  EXPECT_TRUE(store_
                  ->settle_run(run.id, before_settle.state_version, schedule_state(before_settle),
                               kNow + 6, {})
                  .ok());
}

// ---------------------------------------------------------------- fencing

TEST_P(PlanCommitConformance, AStaleDaemonFenceRefusesCommitsAndSettlementsAndWritesNothing) {
  for (const bool taken_over : {false, true}) {
    SCOPED_TRACE(taken_over ? "taken over" : "released");
    const Loop loop = add_loop(taken_over ? "taken over" : "released");
    const orrery::Run finished = daemon_run(loop, kNow - kMinute, RunStatus::kFailed, kNow);
    auto lease = store_->acquire_daemon_lease({100, 1}, 30'000, kNow);
    ASSERT_TRUE(lease.ok() && lease->has_value());
    const Fence fence{(*lease)->lease_id};
    if (taken_over) {
      ASSERT_TRUE(store_->acquire_daemon_lease({200, 2}, 30'000, kNow + 1).ok());
    } else {
      ASSERT_TRUE(store_->release_daemon_lease(fence.daemon_lease_id, kNow).ok());
    }
    const Loop before = loop_now(loop);
    const std::int64_t rows = runs_of(loop);
    LoopPlanCommit plan = plan_for(before);
    plan.claim = {kNow};
    plan.queue = {kNow + kMinute};
    plan.skipped = {{kNow + 2 * kMinute, SkipReason::kOverlap}};
    plan.state.next_run_at = kNow + 3 * kMinute;
    EXPECT_TRUE(lost_lease(store_->commit_plans({plan}, "daemon", kNow + 2, fence)));
    EXPECT_TRUE(lost_lease(store_->settle_run(finished.id, before.state_version,
                                              schedule_state(before), kNow + 2, fence)));
    EXPECT_TRUE(lost_lease(store_->settle_runs(
        {{finished.id, before.state_version, schedule_state(before)}}, kNow + 2, fence)));
    expect_unchanged(loop.id, before);
    EXPECT_EQ(runs_of(loop), rows);
    EXPECT_FALSE(run_at(loop, kNow - kMinute).settled);
  }
}

TEST_P(PlanCommitConformance, ALiveFenceLetsCommitsAndSettlementsThrough) {
  probe_->start({100, 1});
  auto lease = store_->acquire_daemon_lease({100, 1}, 30'000, kNow);
  ASSERT_TRUE(lease.ok() && lease->has_value());
  const Fence fence{(*lease)->lease_id};
  const Loop loop = add_loop("live");
  LoopPlanCommit plan = plan_for(loop);
  plan.claim = {kNow};
  auto results = store_->commit_plans({plan}, "daemon", kNow + 29'999, fence);
  ASSERT_TRUE(results.ok()) << results.error().message;
  ASSERT_EQ((*results)[0].claimed.size(), 1u);
  finish((*results)[0].claimed[0].claim, RunStatus::kSucceeded, kNow + 29'999);
  const Loop read = loop_now(loop);
  EXPECT_TRUE(store_
                  ->settle_run((*results)[0].claimed[0].run.id, read.state_version,
                               schedule_state(read), kNow + 29'999, fence)
                  .ok());
  // An empty claimant is refused.
  EXPECT_EQ(store_->commit_plans({}, "", kNow, fence).error().code, ErrorCode::kUsage);
}

// ---------------------------------------------------------------- next-in

TEST_P(PlanCommitConformance, ARunningRunStoresItsNextInChoice) {
  const Loop loop = add_loop("dynamic");
  const ClaimedRun running = claim(loop, kNow);
  for (DurationMs delay : {DurationMs{0}, DurationMs{1}, 90'000 * kMinute, kMaxDynamicDelayMs}) {
    ASSERT_TRUE(store_->set_run_next_in(running.run.id, delay, kNow + 1).ok());
    EXPECT_EQ(run_at(loop, kNow).next_in_ms, delay);
  }
  finish(running.claim, RunStatus::kFailed);
  EXPECT_EQ(run_at(loop, kNow).next_in_ms, kMaxDynamicDelayMs);  // kept with the outcome
  // A new attempt of the slot starts without a choice.
  EXPECT_FALSE(claim(loop, kNow, "runner-a", kNow + 2000).run.next_in_ms.has_value());
}

TEST_P(PlanCommitConformance, ANextInChoiceOfARunThatIsNotRunningIsAConflict) {
  const Loop loop = add_loop("not running");
  finish(claim(loop, kNow).claim, RunStatus::kSucceeded);
  ASSERT_TRUE(store_->record_skipped(loop, kNow + kMinute, "missed", kNow, {}).ok());
  LoopPlanCommit plan = plan_for(loop);
  plan.queue = {kNow + 2 * kMinute};
  commit({plan});
  for (TimeMs slot : {kNow, kNow + kMinute, kNow + 2 * kMinute}) {
    const orrery::Run run = run_at(loop, slot);
    SCOPED_TRACE(run_status_name(run.status));
    auto refused = store_->set_run_next_in(run.id, kMinute, kNow);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
    EXPECT_NE(refused.error().message.find("run " + run.id + " is not running"), std::string::npos)
        << refused.error().message;
    EXPECT_FALSE(run_at(loop, slot).next_in_ms.has_value());
  }
  EXPECT_EQ(store_->set_run_next_in("0000000000000000000000000000dead", kMinute, kNow).error().code,
            ErrorCode::kNotFound);
}

TEST_P(PlanCommitConformance, ANextInDelayOutsideZeroTo365DaysIsAUsageError) {
  const Loop loop = add_loop("range");
  const ClaimedRun running = claim(loop, kNow);
  for (DurationMs delay : {DurationMs{-1}, DurationMs{-kMinute}, kMaxDynamicDelayMs + 1,
                           std::numeric_limits<DurationMs>::max()}) {
    SCOPED_TRACE(delay);
    auto refused = store_->set_run_next_in(running.run.id, delay, kNow);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
    EXPECT_NE(refused.error().message.find("365 days"), std::string::npos)
        << refused.error().message;
  }
  EXPECT_FALSE(run_at(loop, kNow).next_in_ms.has_value());
}

// ---------------------------------------------------------------- wake-up times

TEST_P(PlanCommitConformance, NothingToWaitForWakesNothing) {
  auto wake = store_->wake_times(kNow);
  ASSERT_TRUE(wake.ok()) << wake.error().message;
  EXPECT_FALSE(wake->next_due.has_value());
  EXPECT_FALSE(wake->lease_expiry.has_value());
  EXPECT_FALSE(wake->cooldown_end.has_value());
}

TEST_P(PlanCommitConformance, WakeTimesAreTheEarliestDueSlotLeaseEndAndCooldownEnd) {
  // Loops: only active, unarchived ones due after now count.
  const auto loop_at = [&](const char* name, TimeMs next, LoopStatus status, bool archived) {
    Loop loop = make_loop(name);
    loop.next_run_at = next;
    loop.status = status;
    loop.archived = archived;
    EXPECT_TRUE(store_->create_loop(loop).ok());
    return loop;
  };
  loop_at("due now", kNow, LoopStatus::kActive, false);
  loop_at("overdue", kNow - kMinute, LoopStatus::kActive, false);
  loop_at("paused", kNow + 1000, LoopStatus::kPaused, false);
  loop_at("archived", kNow + 1000, LoopStatus::kPaused, true);
  loop_at("completed", kNow + 1000, LoopStatus::kCompleted, false);
  const Loop soon = loop_at("soon", kNow + 5000, LoopStatus::kActive, false);
  loop_at("later", kNow + 9000, LoopStatus::kActive, false);
  // Runs: the earliest lease end of a running run; finished ones do not count.
  claim(soon, kNow - 2 * kMinute, "a", kNow - 30'000);  // lease to kNow + 30 s
  claim(soon, kNow - kMinute, "a", kNow - 50'000);      // lease to kNow + 10 s
  finish(claim(soon, kNow - 3 * kMinute, "a", kNow - 59'000).claim, RunStatus::kSucceeded,
         kNow - 58'000);
  // Cooldowns: the earliest end still in force.
  ASSERT_TRUE(store_->record_cooldown("claude", kNow + 70'000, "limit", kNow).ok());
  ASSERT_TRUE(store_->record_cooldown("codex", kNow + 40'000, "limit", kNow).ok());
  ASSERT_TRUE(store_->record_cooldown("gemini", kNow - 1, "limit", kNow - 60'000).ok());
  auto wake = store_->wake_times(kNow);
  ASSERT_TRUE(wake.ok()) << wake.error().message;
  EXPECT_EQ(wake->next_due, kNow + 5000);
  EXPECT_EQ(wake->lease_expiry, kNow + 10'000);
  EXPECT_EQ(wake->cooldown_end, kNow + 40'000);
  // Later, what has passed no longer counts (an expired lease still does:
  // recovery is due).
  auto later = store_->wake_times(kNow + 50'000);
  EXPECT_EQ(later->next_due, std::nullopt);
  EXPECT_EQ(later->lease_expiry, kNow + 10'000);
  EXPECT_EQ(later->cooldown_end, kNow + 70'000);
}

INSTANTIATE_TEST_SUITE_P(Backends, PlanCommitConformance, backends(), backend_name);

}  // namespace
}  // namespace orrery
