// The Store conformance suite, the runners' part (docs/daemon.md, "Runners"):
// slots a plan leaves pending for runners, runners' batched claims of them
// by labels, cancel requests, and notices. Every backend must pass it.
#include <gtest/gtest.h>
#include <poll.h>

#include <functional>
#include <set>

#include "core/limits.h"
#include "core/runner_labels.h"
#include "store/store_conformance.h"

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)

class RunnerClaims : public StoreConformance {
 protected:
  Loop loop_now(const Loop& loop) {
    auto read = store_->get_loop(loop.id);
    EXPECT_TRUE(read.ok() && read->has_value());
    return read.ok() && read->has_value() ? **read : Loop{};
  }

  // Leaves `slots` of the loop (as stored now) pending for runners.
  std::vector<orrery::Run> leave_pending(const Loop& loop, std::vector<TimeMs> slots,
                                         TimeMs now = kNow) {
    const Loop current = loop_now(loop);
    LoopPlanCommit plan;
    plan.loop_id = current.id;
    plan.state_version = current.state_version;
    plan.state = schedule_state(current);
    plan.claim = std::move(slots);
    plan.to_runners = true;
    auto results = store_->commit_plans({plan}, "daemon@scheduler:1", now, {});
    EXPECT_TRUE(results.ok()) << (results ? "" : results.error().message);
    if (!results.ok() || results->size() != 1) return {};
    EXPECT_TRUE((*results)[0].claimed.empty());
    return (*results)[0].pending;
  }

  std::vector<ClaimedRun> claim_pending(const std::string& runner, const std::string& labels,
                                        int limit, TimeMs now = kNow + 10) {
    auto claimed = store_->claim_pending(runner, labels, limit, now);
    EXPECT_TRUE(claimed.ok()) << (claimed ? "" : claimed.error().message);
    return claimed.ok() ? *claimed : std::vector<ClaimedRun>{};
  }

  Loop add_loop_for(const std::string& name, std::vector<EnvVar> machine) {
    Loop loop = make_loop(name);
    loop.machine = std::move(machine);
    const Status created = store_->create_loop(loop);
    EXPECT_TRUE(created.ok()) << (created ? "" : created.error().message);
    return loop;
  }

  std::string host_labels() const { return "host=" + probe_->host_name(); }
};

// ---------------------------------------------------------------- pending rows

TEST_P(RunnerClaims, APlanForRunnersLeavesItsSlotsPendingWithoutAClaim) {
  const Loop loop = add_loop("pooled");
  const auto pending = leave_pending(loop, {kNow, kNow + kMinute}, kNow + 5);
  ASSERT_EQ(pending.size(), 2u);
  for (const orrery::Run& run : pending) {
    const orrery::Run stored = run_at(loop, run.scheduled_for);
    EXPECT_EQ(stored.id, run.id);
    EXPECT_EQ(stored.status, RunStatus::kPending);
    EXPECT_EQ(stored.attempt, 1);
    EXPECT_EQ(stored.claimed_by, "");
    EXPECT_EQ(stored.claim_token, "");
    EXPECT_EQ(stored.host, "");
    EXPECT_FALSE(stored.started_at.has_value());
    EXPECT_FALSE(stored.lease_expires_at.has_value());
    EXPECT_FALSE(stored.settled) << "a planned slot's finish is settled by the scheduler";
  }
  EXPECT_EQ(*store_->count_runs(RunStatus::kPending), 2);
  EXPECT_EQ(*store_->count_runs(RunStatus::kRunning), 0);
  auto active = store_->active_runs(100);
  ASSERT_TRUE(active.ok()) << active.error().message;
  EXPECT_EQ(active->size(), 2u) << "pending runs are active";
  EXPECT_FALSE(is_terminal(RunStatus::kPending));
  EXPECT_EQ(*parse_run_status("pending"), RunStatus::kPending);
}

TEST_P(RunnerClaims, AManualSlotLeftToRunnersIsPendingUntilARunnerWithItsLabelsClaimsIt) {
  Loop paused = add_loop_for("by-hand", {{"gpu", "h100"}});
  paused = loop_now(paused);
  paused.status = LoopStatus::kPaused;
  ASSERT_TRUE(store_->update_loop_parts(paused, {false, true}, {}, kNow).ok());
  // Manual: a paused loop's slot may be left too, as it may be claimed.
  auto left = store_->claim_slot({paused.id, kNow + 1, true, true}, "trigger@here:7", kNow, {});
  ASSERT_TRUE(left.ok()) << left.error().message;
  ASSERT_TRUE(left->has_value());
  const ClaimedRun& pending = **left;
  EXPECT_EQ(pending.run.status, RunStatus::kPending);
  EXPECT_TRUE(pending.claim.id.empty());
  EXPECT_TRUE(pending.claim.token.empty());
  const orrery::Run stored = run_at(paused, kNow + 1);
  EXPECT_EQ(stored.id, pending.run.id);
  EXPECT_EQ(stored.status, RunStatus::kPending);
  EXPECT_EQ(stored.claimed_by, "");
  EXPECT_EQ(stored.host, "");
  EXPECT_FALSE(stored.started_at.has_value());
  paused = loop_now(paused);
  paused.status = LoopStatus::kActive;
  ASSERT_TRUE(store_->update_loop_parts(paused, {false, true}, {}, kNow).ok());
  EXPECT_TRUE(claim_pending("daemon@a:1", host_labels(), 10).empty()) << "not its labels";
  const auto claimed = claim_pending("daemon@b:2", "gpu=h100," + host_labels(), 10);
  ASSERT_EQ(claimed.size(), 1u);
  EXPECT_EQ(claimed[0].run.id, pending.run.id);
  EXPECT_EQ(claimed[0].claim.claimed_by, "daemon@b:2");
  // The slot is taken: not left, nor claimed, a second time.
  auto again = store_->claim_slot({paused.id, kNow + 1, true, true}, "trigger@here:8", kNow, {});
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_FALSE(again->has_value());
}

TEST_P(RunnerClaims, ARunnerClaimsPendingRunsOldestSlotFirstUpToItsLimit) {
  std::vector<TimeMs> slots;
  std::vector<Loop> loops;
  for (int i = 0; i < 5; ++i) {
    loops.push_back(add_loop("loop-" + std::to_string(i)));
    // Slots in the reverse order of the loops' creation.
    const TimeMs slot = kNow - TimeMs(i) * kMinute;
    slots.push_back(slot);
    ASSERT_EQ(leave_pending(loops.back(), {slot}).size(), 1u);
  }
  std::sort(slots.begin(), slots.end());
  const auto first = claim_pending("daemon@a:1", host_labels(), 3, kNow + 10);
  ASSERT_EQ(first.size(), 3u);
  for (size_t i = 0; i < first.size(); ++i) {
    const ClaimedRun& claimed = first[i];
    EXPECT_EQ(claimed.run.scheduled_for, slots[i]) << "oldest slot first";
    EXPECT_EQ(claimed.run.status, RunStatus::kRunning);
    EXPECT_EQ(claimed.claim.id, claimed.run.id);
    EXPECT_EQ(claimed.claim.claimed_by, "daemon@a:1");
    EXPECT_FALSE(claimed.claim.token.empty());
    auto read = store_->get_run(claimed.run.id);
    ASSERT_TRUE(read.ok() && read->has_value());
    EXPECT_EQ((*read)->status, RunStatus::kRunning);
    EXPECT_EQ((*read)->claim_token, claimed.claim.token);
    EXPECT_EQ((*read)->host, probe_->host_name());
    EXPECT_EQ((*read)->started_at, kNow + 10);
    EXPECT_EQ((*read)->lease_expires_at, kNow + 10 + kMinute) << "the loop's lease";
    EXPECT_EQ((*read)->attempt, 1);
  }
  std::set<std::string> tokens;
  for (const ClaimedRun& claimed : first) tokens.insert(claimed.claim.token);
  const auto rest = claim_pending("daemon@b:2", host_labels(), 100);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0].run.scheduled_for, slots[3]);
  EXPECT_EQ(rest[1].run.scheduled_for, slots[4]);
  EXPECT_TRUE(claim_pending("daemon@c:3", host_labels(), 100).empty()) << "nothing left";
  EXPECT_EQ(*store_->count_runs(RunStatus::kPending), 0);
  EXPECT_EQ(*store_->count_runs(RunStatus::kRunning), 5);
}

TEST_P(RunnerClaims, ARunClaimedByARunnerIsHeartbeatenAndFinishedUnderItsClaim) {
  const Loop loop = add_loop("pooled");
  ASSERT_EQ(leave_pending(loop, {kNow}).size(), 1u);
  const auto claimed = claim_pending("daemon@a:1", host_labels(), 1);
  ASSERT_EQ(claimed.size(), 1u);
  const Claim& claim = claimed[0].claim;
  EXPECT_TRUE(store_->heartbeat_claim(claim, kMinute, kNow + 20).ok());
  Claim forged = claim;
  forged.claimed_by = "daemon@b:2";
  EXPECT_FALSE(store_->heartbeat_claim(forged, kMinute, kNow + 20).ok())
      << "another runner's heartbeat changes nothing";
  finish(claim, RunStatus::kSucceeded, kNow + 30);
  const orrery::Run done = run_at(loop, kNow);
  EXPECT_EQ(done.status, RunStatus::kSucceeded);
  EXPECT_EQ(done.claimed_by, "daemon@a:1");
  EXPECT_FALSE(done.settled);
  auto unsettled = store_->unsettled_runs(10);
  ASSERT_TRUE(unsettled.ok());
  ASSERT_EQ(unsettled->size(), 1u) << "the scheduler settles it";
}

TEST_P(RunnerClaims, NoLimitOrNoClaimantClaimsNothing) {
  const Loop loop = add_loop("pooled");
  ASSERT_EQ(leave_pending(loop, {kNow}).size(), 1u);
  for (int limit : {0, -1, std::numeric_limits<int>::min()}) {
    EXPECT_TRUE(claim_pending("daemon@a:1", host_labels(), limit).empty()) << limit;
  }
  auto nobody = store_->claim_pending("", host_labels(), 10, kNow);
  ASSERT_FALSE(nobody.ok());
  EXPECT_EQ(nobody.error().code, ErrorCode::kUsage);
  EXPECT_EQ(*store_->count_runs(RunStatus::kPending), 1);
  // A huge limit is capped, not refused.
  EXPECT_EQ(claim_pending("daemon@a:1", host_labels(), std::numeric_limits<int>::max()).size(), 1u);
}

// ---------------------------------------------------------------- labels

TEST_P(RunnerClaims, ARunnerClaimsOnlyRunsWhoseMachineSelectorItsLabelsHold) {
  struct Case {
    std::vector<EnvVar> selector;
    std::string labels;
    bool claimed;
  };
  const std::string host = host_labels();
  const std::vector<Case> cases = {
      {{}, host, true},
      {{{"gpu", "a100"}}, host, false},
      {{{"gpu", "a100"}}, "gpu=a100," + host, true},
      {{{"gpu", "a100"}}, "gpu=h100," + host, false},
      {{{"gpu", "a100"}, {"zone", "eu"}}, "gpu=a100," + host, false},
      {{{"gpu", "a100"}, {"zone", "eu"}}, "gpu=a100," + host + ",zone=eu", true},
      {{{"host", probe_->host_name()}}, host, true},
      {{{"host", "elsewhere"}}, host, false},
      {{{"k", "v=w"}}, host + ",k=v=w", true},
      {{{"k", "v"}}, host + ",k=v=w", false},
      {{{"gpu", "a"}}, "gpu=ab," + host, false},
      {{{"zone", "ü-1"}}, host + ",zone=ü-1", true},
  };
  int index = 0;
  for (const Case& c : cases) {
    const Loop loop = add_loop_for("selective-" + std::to_string(index++), c.selector);
    ASSERT_EQ(leave_pending(loop, {kNow}).size(), 1u);
    // The labels as a runner stores them: sorted, each once.
    auto parsed = parse_labels_text(c.labels);
    ASSERT_TRUE(parsed.ok()) << c.labels << ": " << parsed.error().message;
    const auto claimed = claim_pending("daemon@a:1", labels_text(*parsed), 10);
    EXPECT_EQ(claimed.size(), c.claimed ? 1u : 0u) << "labels " << c.labels;
    EXPECT_EQ(run_at(loop, kNow).status, c.claimed ? RunStatus::kRunning : RunStatus::kPending)
        << "labels " << c.labels;
    // Out of the way of the next case's runner.
    if (!claimed.empty()) finish(claimed[0].claim, RunStatus::kSucceeded, kNow + 20);
    if (claimed.empty()) {
      ASSERT_TRUE(store_->request_cancel(run_at(loop, kNow).id, "", kNow).ok());
    }
  }
}

// ---------------------------------------------------------------- loops that wait

TEST_P(RunnerClaims, PendingRunsOfAPausedOrArchivedLoopWaitAndOfAnExpiredLoopAreSkipped) {
  Loop paused = add_loop("paused");
  Loop archived = add_loop("archived");
  Loop expiring = make_loop("expiring");
  expiring.expires_at = kNow + 1000;
  ASSERT_TRUE(store_->create_loop(expiring).ok());
  for (const Loop* loop : {&paused, &archived, &expiring}) {
    ASSERT_EQ(leave_pending(*loop, {kNow}).size(), 1u);
  }
  paused = loop_now(paused);
  paused.status = LoopStatus::kPaused;
  ASSERT_TRUE(store_->update_loop_parts(paused, {false, true}, {}, kNow).ok());
  archived = loop_now(archived);
  archived.archived = true;
  ASSERT_TRUE(store_->update_loop_parts(archived, {false, true}, {}, kNow).ok());

  // Past the expiry: not claimed even before expiry is recorded.
  EXPECT_TRUE(claim_pending("daemon@a:1", host_labels(), 10, kNow + 2000).empty());
  EXPECT_EQ(*store_->count_runs(RunStatus::kPending), 3);
  ASSERT_TRUE(store_->expire_loops(kNow + 2000, {}).ok());
  const orrery::Run skipped = run_at(expiring, kNow);
  EXPECT_EQ(skipped.status, RunStatus::kSkipped);
  EXPECT_EQ(skipped.skip_reason, "expired");
  EXPECT_TRUE(skipped.settled);

  paused = loop_now(paused);
  paused.status = LoopStatus::kActive;
  ASSERT_TRUE(store_->update_loop_parts(paused, {false, true}, {}, kNow + 3000).ok());
  const auto resumed = claim_pending("daemon@a:1", host_labels(), 10, kNow + 3000);
  ASSERT_EQ(resumed.size(), 1u);
  EXPECT_EQ(resumed[0].run.loop_id, paused.id);
  EXPECT_EQ(run_at(archived, kNow).status, RunStatus::kPending);
}

// Every term a claim checks of the loop, changed after its slot was left
// pending — from claimable to not and back, through either part of the loop
// — decides the claim as it would had the loop been so when the slot was
// left; a change of anything else leaves the row as it was. A row the
// change holds back never keeps a runner from a later claimable one.
TEST_P(RunnerClaims, APendingRunFollowsEveryChangeOfItsLoopsClaimTerms) {
  struct Case {
    const char* name;
    std::function<void(Loop&)> before;  // the loop as created
    std::function<void(Loop&)> change;  // then, with the slot pending
    LoopParts part;
    bool claimed;
    DurationMs lease = kMinute;
  };
  const LoopParts config{true, false};
  const LoopParts state{false, true};
  const auto nothing = [](Loop&) {};
  const std::vector<Case> cases = {
      {"paused", nothing, [](Loop& l) { l.status = LoopStatus::kPaused; }, state, false},
      {"resumed", [](Loop& l) { l.status = LoopStatus::kPaused; },
       [](Loop& l) { l.status = LoopStatus::kActive; }, state, true},
      {"archived", nothing, [](Loop& l) { l.archived = true; }, state, false},
      {"unarchived", [](Loop& l) { l.archived = true; }, [](Loop& l) { l.archived = false; }, state,
       true},
      {"completed", nothing, [](Loop& l) { l.status = LoopStatus::kCompleted; }, state, false},
      {"selector the labels miss", nothing,
       [](Loop& l) {
         l.machine = {{"gpu", "h100"}};
       },
       config, false},
      {"selector the labels hold",
       [](Loop& l) {
         l.machine = {{"gpu", "h100"}};
       },
       [](Loop& l) {
         l.machine = {{"gpu", "a100"}};
       },
       config, true},
      {"selector removed",
       [](Loop& l) {
         l.machine = {{"zone", "eu"}};
       },
       [](Loop& l) { l.machine = {}; }, config, true},
      {"expiry passed", nothing, [](Loop& l) { l.expires_at = kNow + 5; }, config, false},
      {"expiry lifted", [](Loop& l) { l.expires_at = kNow + 5; },
       [](Loop& l) { l.expires_at.reset(); }, config, true},
      {"expiry moved later", [](Loop& l) { l.expires_at = kNow + 5; },
       [](Loop& l) { l.expires_at = kNow + kMinute; }, config, true},
      {"lease longer", nothing, [](Loop& l) { l.lease_ms = 7 * kMinute; }, config, true,
       7 * kMinute},
      {"lease shorter", nothing, [](Loop& l) { l.lease_ms = 2000; }, config, true, 2000},
      {"description", nothing, [](Loop& l) { l.description = "changed"; }, config, true},
      {"missed count", nothing, [](Loop& l) { l.missed_count = 4; }, state, true},
  };
  const std::string labels = "gpu=a100," + host_labels();
  int index = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string suffix = std::to_string(index++);
    Loop loop = make_loop("terms-" + suffix);
    c.before(loop);
    ASSERT_TRUE(store_->create_loop(loop).ok());
    // The slot is left while the loop is as created (a held loop's slot
    // is left by hand: a plan would not claim it).
    Loop held = loop_now(loop);
    const bool open = held.status == LoopStatus::kActive && !held.archived;
    if (!open) {
      held.status = LoopStatus::kActive;
      held.archived = false;
      ASSERT_TRUE(store_->update_loop_parts(held, state, {}, kNow).ok());
    }
    ASSERT_EQ(leave_pending(loop, {kNow}).size(), 1u);
    if (!open) {
      held = loop_now(loop);
      c.before(held);
      ASSERT_TRUE(store_->update_loop_parts(held, state, {}, kNow).ok());
    }
    Loop changed = loop_now(loop);
    c.change(changed);
    ASSERT_TRUE(store_->update_loop_parts(changed, c.part, {}, kNow + 1).ok());
    // A later slot of an open loop, which a held row must not hide.
    const Loop later = add_loop("later-" + suffix);
    ASSERT_EQ(leave_pending(later, {kNow + 1}).size(), 1u);

    const auto first = claim_pending("daemon@a:1", labels, 1, kNow + 10);
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].run.loop_id, c.claimed ? loop.id : later.id);
    const auto second = claim_pending("daemon@a:1", labels, 10, kNow + 10);
    EXPECT_EQ(second.size(), c.claimed ? 1u : 0u);
    const orrery::Run run = run_at(loop, kNow);
    EXPECT_EQ(run.status, c.claimed ? RunStatus::kRunning : RunStatus::kPending);
    if (c.claimed) {
      EXPECT_EQ(run.lease_expires_at, kNow + 10 + c.lease) << "the loop's lease now";
    }
    for (const ClaimedRun& claimed : first) finish(claimed.claim, RunStatus::kSucceeded, kNow + 20);
    for (const ClaimedRun& claimed : second)
      finish(claimed.claim, RunStatus::kSucceeded, kNow + 20);
    if (!c.claimed) {
      ASSERT_TRUE(store_->request_cancel(run.id, "", kNow + 20).ok());
    }
  }
}

TEST_P(RunnerClaims, ARetryLeftToRunnersCarriesItsNextAttempt) {
  const Loop loop = add_loop("retried");
  ASSERT_EQ(leave_pending(loop, {kNow}).size(), 1u);
  const auto first = claim_pending("daemon@a:1", host_labels(), 1);
  ASSERT_EQ(first.size(), 1u);
  finish(first[0].claim, RunStatus::kFailed, kNow + 20);
  const auto retry = leave_pending(loop, {kNow}, kNow + 30);
  ASSERT_EQ(retry.size(), 1u);
  EXPECT_EQ(retry[0].attempt, 2);
  EXPECT_EQ(run_at(loop, kNow).status, RunStatus::kPending);
  EXPECT_EQ(run_at(loop, kNow).exit_code, std::nullopt) << "the failed attempt's outcome is gone";
  const auto second = claim_pending("daemon@b:2", host_labels(), 1, kNow + 40);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].run.attempt, 2);
  EXPECT_NE(second[0].claim.token, first[0].claim.token);
  // The first runner's claim is stale now.
  RunOutcome outcome;
  outcome.status = RunStatus::kSucceeded;
  EXPECT_FALSE(store_->finish_claim(first[0].claim, outcome, kNow + 50).ok());
}

TEST_P(RunnerClaims, APendingSlotIsNeitherClaimedAgainByAPlanNorByHand) {
  const Loop loop = add_loop("held");
  ASSERT_EQ(leave_pending(loop, {kNow}).size(), 1u);
  EXPECT_FALSE(claimable(loop, kNow, kNow + 10)) << "a manual claim leaves it to runners";
  EXPECT_TRUE(leave_pending(loop, {kNow}, kNow + 20).empty());
  const orrery::Run stored = run_at(loop, kNow);
  EXPECT_EQ(stored.status, RunStatus::kPending);
  EXPECT_FALSE(stored.settled) << "not handed to settlement: it has not run";
  EXPECT_EQ(*store_->count_runs(std::nullopt), 1);
}

// ---------------------------------------------------------------- cancel requests

TEST_P(RunnerClaims, CancellingAPendingRunEndsItAtOnce) {
  const Loop loop = add_loop("replaced");
  const auto pending = leave_pending(loop, {kNow});
  ASSERT_EQ(pending.size(), 1u);
  auto status = store_->request_cancel(pending[0].id, "replaced by a newer slot", kNow + 5);
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(*status, RunStatus::kCancelled);
  const orrery::Run cancelled = run_at(loop, kNow);
  EXPECT_EQ(cancelled.status, RunStatus::kCancelled);
  EXPECT_EQ(cancelled.error, "replaced by a newer slot");
  EXPECT_EQ(cancelled.finished_at, kNow + 5);
  EXPECT_FALSE(cancelled.settled) << "a loop waiting for the slot moves on when it is settled";
  EXPECT_TRUE(claim_pending("daemon@a:1", host_labels(), 10).empty());
}

TEST_P(RunnerClaims, CancellingARunningRunAsksItsRunnerAndANewAttemptForgetsTheRequest) {
  const Loop loop = add_loop("running");
  ASSERT_EQ(leave_pending(loop, {kNow}).size(), 1u);
  const auto claimed = claim_pending("daemon@a:1", host_labels(), 1);
  ASSERT_EQ(claimed.size(), 1u);
  auto none = store_->running_cancel_requests("daemon@a:1");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());

  auto status = store_->request_cancel(claimed[0].run.id, "replaced", kNow + 5);
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(*status, RunStatus::kRunning);
  auto asked = store_->running_cancel_requests("daemon@a:1");
  ASSERT_TRUE(asked.ok());
  ASSERT_EQ(asked->size(), 1u);
  EXPECT_EQ((*asked)[0].id, claimed[0].run.id);
  EXPECT_TRUE((*asked)[0].cancel_requested);
  EXPECT_TRUE(store_->running_cancel_requests("daemon@b:2")->empty()) << "only its own runner's";

  finish(claimed[0].claim, RunStatus::kFailed, kNow + 20);
  EXPECT_TRUE(store_->running_cancel_requests("daemon@a:1")->empty()) << "finished";
  auto finished = store_->request_cancel(claimed[0].run.id, "again", kNow + 30);
  ASSERT_TRUE(finished.ok());
  EXPECT_EQ(*finished, RunStatus::kFailed) << "a finished run is left as it is";
  EXPECT_EQ(run_at(loop, kNow).error, "");

  ASSERT_EQ(leave_pending(loop, {kNow}, kNow + 40).size(), 1u);
  const auto retry = claim_pending("daemon@a:1", host_labels(), 1, kNow + 50);
  ASSERT_EQ(retry.size(), 1u);
  EXPECT_FALSE(run_at(loop, kNow).cancel_requested) << "a new attempt starts without the request";

  auto unknown = store_->request_cancel("r-none", "why", kNow);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
}

// ---------------------------------------------------------------- notices

TEST_P(RunnerClaims, AServerNotifiesListenersOfPendingRunsAndLoopChanges) {
  auto fd = store_->listen_for_notices();
  ASSERT_TRUE(fd.ok()) << fd.error().message;
  if (std::string(GetParam().name) == "sqlite") {
    EXPECT_EQ(*fd, -1) << "a file's daemon is woken through its data directory";
    EXPECT_FALSE(*store_->take_notices());
    return;
  }
  ASSERT_GE(*fd, 0);
  EXPECT_FALSE(*store_->take_notices()) << "nothing yet";
  auto other = GetParam().open(place_, probe_);
  ASSERT_NE(other, nullptr);
  const auto wait_for_notice = [&](const char* what) {
    pollfd ready{*fd, POLLIN, 0};
    ASSERT_EQ(::poll(&ready, 1, 10'000), 1) << "no notice of " << what;
    auto taken = store_->take_notices();
    ASSERT_TRUE(taken.ok()) << taken.error().message;
    EXPECT_TRUE(*taken) << what;
    EXPECT_FALSE(*store_->take_notices()) << "each notice is taken once";
  };
  Loop loop = make_loop("noticed");
  ASSERT_TRUE(other->create_loop(loop).ok());
  wait_for_notice("a new loop");
  LoopPlanCommit plan;
  plan.loop_id = loop.id;
  plan.state_version = 1;
  plan.state = schedule_state(loop);
  plan.claim = {kNow};
  plan.to_runners = true;
  ASSERT_TRUE(other->commit_plans({plan}, "daemon@s:1", kNow, {}).ok());
  wait_for_notice("a pending run");
  const orrery::Run pending = run_at(loop, kNow);
  auto claimed = other->claim_pending("daemon@a:1", host_labels(), 1, kNow);
  ASSERT_TRUE(claimed.ok() && claimed->size() == 1u);
  ASSERT_TRUE(other->request_cancel(pending.id, "stop", kNow).ok());
  wait_for_notice("a cancel request");
}

INSTANTIATE_TEST_SUITE_P(Backends, RunnerClaims, backends(), backend_name);

}  // namespace
}  // namespace orrery
