#include "engine/tick.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/ids.h"
#include "engine/daemon_lease.h"
#include "engine/settling.h"
#include "store/sqlite/sqlite_store.h"
#include "support/fake_processes.h"
#include "support/temp_dir.h"

namespace orrery {
namespace {

constexpr TimeMs kNow = 1'796'083'200'000;  // 2026-12-01T00:00:00.000Z
constexpr DurationMs kMinute = 60'000;

// A store with the daemon lease held by a live process, and loops to tick.
class Tick : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(
        {dir_.file("orrery.db"), sqlite::Synchronous::kNormal, 5000, probe_, kNow - kMinute});
    ASSERT_TRUE(opened.ok());
    store_ = std::move(*opened);
    probe_->start(daemon_);
    auto lease = acquire_lease(*store_, daemon_, 3'600'000, kNow - kMinute);
    ASSERT_TRUE(lease.ok()) << lease.error().message;
    settings_.location = {dir_.path(), ""};
    settings_.fence = {lease->lease_id};
    settings_.claimant = "daemon@test-host:4242";
    settings_.max_running = 64;
  }

  // An active interval loop (every minute) whose next slot is `next_run_at`.
  Loop add_loop(const std::string& name, std::optional<TimeMs> next_run_at) {
    Loop loop;
    loop.id = make_id(kNow - 10 * kMinute, {std::uint8_t(++loops_)});
    loop.name = name;
    loop.schedule.type = ScheduleType::kInterval;
    loop.schedule.every_ms = kMinute;
    loop.target.argv = {"true"};
    loop.next_run_at = next_run_at;
    loop.created_at = loop.updated_at = kNow - 10 * kMinute;
    EXPECT_TRUE(store_->create_loop(loop).ok());
    return loop;
  }

  Result<TickReport> tick(TimeMs now, bool recover = false, bool expire = true) {
    return run_tick(*store_, *probe_, settings_, {now, now, kNow - 3'600'000}, {recover, expire},
                    [this](const std::string& line) { log_.push_back(line); });
  }

  Loop loop_of(const std::string& id) { return loop(id); }
  Loop loop(const std::string& id) {
    auto found = store_->get_loop(id);
    EXPECT_TRUE(found.ok() && found->has_value());
    return found.ok() && found->has_value() ? **found : Loop{};
  }

  std::vector<orrery::Run> runs() {
    auto all = store_->list_runs({});
    EXPECT_TRUE(all.ok());
    return all.ok() ? *all : std::vector<orrery::Run>{};
  }

  void finish(const ClaimedRun& claimed, RunStatus status, TimeMs at) {
    RunOutcome outcome;
    outcome.status = status;
    if (status == RunStatus::kFailed) outcome.exit_code = 1;
    ASSERT_TRUE(store_->finish_claim(claimed.claim, outcome, at).ok());
  }

  testing::TempDir dir_;
  std::shared_ptr<testing::FakeProcesses> probe_ = std::make_shared<testing::FakeProcesses>();
  std::unique_ptr<SqliteStore> store_;
  ProcessIdentity daemon_{4242, kNow - 2 * kMinute};
  TickSettings settings_;
  std::vector<std::string> log_;
  int loops_ = 0;
};

// A fixed-delay loop whose due slot was already taken by a manual run: the
// slot is handed to settlement and settled in the same tick, so the loop
// gets its next slot without waiting for another wake-up.
TEST_F(Tick, ASlotFoundTakenIsSettledInTheSameTick) {
  for (RunStatus status : {RunStatus::kSucceeded, RunStatus::kCancelled}) {
    Loop loop = add_loop(std::string("taken-") + run_status_name(status), kNow - 1'000);
    loop.schedule.anchor = IntervalAnchor::kFixedDelay;
    loop.config_version = 1;
    ASSERT_TRUE(store_->update_loop_parts(loop, {true, false}, {}, kNow - 900).ok());
    auto manual = store_->claim_slot({loop.id, kNow - 1'000, true}, "trigger", kNow - 900, {});
    ASSERT_TRUE(manual.ok() && manual->has_value());
    finish(**manual, status, kNow - 500);
    auto report = tick(kNow);
    ASSERT_TRUE(report.ok()) << report.error().message;
    EXPECT_TRUE(report->claimed.empty());
    const Loop after = loop_of(loop.id);
    ASSERT_TRUE(after.next_run_at.has_value()) << run_status_name(status);
    EXPECT_EQ(*after.next_run_at, kNow - 500 + kMinute) << run_status_name(status);
  }
}

TEST_F(Tick, DueLoopsAreClaimedOldestDueFirstWithinTheCap) {
  const Loop newest = add_loop("newest", kNow - 1'000);
  const Loop oldest = add_loop("oldest", kNow - 3'000);
  const Loop middle = add_loop("middle", kNow - 2'000);
  settings_.max_running = 2;
  auto report = tick(kNow);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_EQ(report->claimed.size(), 2u);
  EXPECT_EQ(report->claimed[0].run.loop_id, oldest.id);
  EXPECT_EQ(report->claimed[1].run.loop_id, middle.id);
  // The third waits, neither skipped nor lost, and starts once capacity frees.
  EXPECT_EQ(runs().size(), 2u);
  auto again = tick(kNow + 10);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->claimed.empty());
  finish(report->claimed[0], RunStatus::kSucceeded, kNow + 20);
  auto freed = tick(kNow + 30);
  ASSERT_TRUE(freed.ok()) << freed.error().message;
  ASSERT_EQ(freed->claimed.size(), 1u);
  EXPECT_EQ(freed->claimed[0].run.loop_id, newest.id);
  EXPECT_EQ(freed->claimed[0].run.scheduled_for, kNow - 1'000);
}

TEST_F(Tick, NothingDueClaimsNothing) {
  for (TimeMs ahead : {TimeMs(1), TimeMs(1'000), kMinute}) add_loop("later", kNow + ahead);
  add_loop("unscheduled", std::nullopt);
  auto report = tick(kNow);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(report->claimed.empty());
  EXPECT_TRUE(runs().empty());
}

TEST_F(Tick, EachSlotIsClaimedOnceAcrossTicks) {
  const Loop due = add_loop("due", kNow - 500);
  for (TimeMs later : {TimeMs(0), TimeMs(1), TimeMs(100)}) {
    auto report = tick(kNow + later);
    ASSERT_TRUE(report.ok()) << report.error().message;
    EXPECT_EQ(report->claimed.size(), later == 0 ? 1u : 0u) << later;
  }
  EXPECT_EQ(runs().size(), 1u);
  EXPECT_EQ(loop(due.id).next_run_at, kNow - 500 + kMinute);
}

TEST_F(Tick, AStaleLeaseWritesNothing) {
  add_loop("due", kNow - 500);
  for (const std::string& stale : {std::string("L1-0000"), std::string("L99-ffff")}) {
    settings_.fence = {stale};
    for (bool recover : {false, true}) {
      auto report = tick(kNow, recover);
      ASSERT_FALSE(report.ok());
      EXPECT_TRUE(is_lease_lost(report.error())) << report.error().message;
    }
  }
  EXPECT_TRUE(runs().empty());
}

TEST_F(Tick, AFailedRunIsSettledIntoARetryAndRetried) {
  Loop retried = add_loop("retried", kNow - 500);
  retried.max_attempts = 2;
  retried.retry_delay_ms = 5'000;
  ASSERT_TRUE(store_->update_loop_parts(retried, {true, false}, {}, kNow - 600).ok());
  auto first = tick(kNow);
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_EQ(first->claimed.size(), 1u);
  finish(first->claimed[0], RunStatus::kFailed, kNow + 100);
  auto settled = tick(kNow + 200);
  ASSERT_TRUE(settled.ok()) << settled.error().message;
  EXPECT_TRUE(settled->claimed.empty());
  const Loop after = loop(retried.id);
  EXPECT_EQ(after.retry_scheduled_for, kNow - 500);
  EXPECT_EQ(after.next_run_at, kNow + 100 + 5'000);
  EXPECT_TRUE(std::any_of(log_.begin(), log_.end(), [](const std::string& line) {
    return line.find(" failed (slot ") != std::string::npos &&
           line.find("retry at ") != std::string::npos;
  })) << ::testing::PrintToString(log_);
  auto retry = tick(kNow + 5'100);
  ASSERT_TRUE(retry.ok()) << retry.error().message;
  ASSERT_EQ(retry->claimed.size(), 1u);
  EXPECT_EQ(retry->claimed[0].run.scheduled_for, kNow - 500);
  EXPECT_EQ(retry->claimed[0].run.attempt, 2);
}

// Runs of distinct loops are settled together; a second run of a loop in
// the same call is settled after the first, from the loop as the first left
// it, never refused as a conflict with its own batch.
TEST_F(Tick, EveryFinishedRunIsSettledInOneCallThoughTwoShareALoop) {
  const Loop twice = add_loop("twice", kNow + kMinute);
  const Loop once = add_loop("once", kNow + kMinute);
  std::vector<LoopPlanCommit> plans;
  for (const auto& [loop, slots] :
       {std::pair{twice, std::vector<TimeMs>{kNow - 2 * kMinute, kNow - kMinute}},
        std::pair{once, std::vector<TimeMs>{kNow - kMinute}}}) {
    LoopPlanCommit plan;
    plan.loop_id = loop.id;
    plan.state_version = this->loop(loop.id).state_version;
    plan.state.next_run_at = kNow + kMinute;
    plan.claim = slots;
    plans.push_back(plan);
  }
  auto committed = store_->commit_plans(plans, settings_.claimant, kNow, settings_.fence);
  ASSERT_TRUE(committed.ok()) << committed.error().message;
  for (const LoopPlanResult& result : *committed) {
    for (const ClaimedRun& claimed : result.claimed) finish(claimed, RunStatus::kSucceeded, kNow);
  }
  const std::int64_t version = loop(twice.id).state_version;
  auto settled = settle_runs(*store_, {}, kNow + 10, settings_.fence,
                             [this](const std::string& line) { log_.push_back(line); });
  ASSERT_TRUE(settled.ok()) << settled.error().message;
  EXPECT_FALSE(settled->retry_soon);
  EXPECT_TRUE(store_->unsettled_runs(100)->empty());
  EXPECT_EQ(loop(twice.id).state_version, version + 2);
  EXPECT_EQ(std::count_if(log_.begin(), log_.end(),
                          [](const std::string& line) {
                            return line.find(" succeeded (slot ") != std::string::npos;
                          }),
            3)
      << ::testing::PrintToString(log_);
}

TEST_F(Tick, RecoveryFinishesARunWhoseSupervisorDied) {
  add_loop("orphaned", kNow - 500);
  auto report = tick(kNow);
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->claimed.size(), 1u);
  const ProcessIdentity dead{99'999, kNow};  // never started in the probe
  ASSERT_TRUE(store_->record_supervisor(report->claimed[0].claim, dead, kNow + 1).ok());
  auto without = tick(kNow + 2, /*recover=*/false);
  ASSERT_TRUE(without.ok());
  EXPECT_EQ(runs().front().status, RunStatus::kRunning);
  auto with = tick(kNow + 3, /*recover=*/true);
  ASSERT_TRUE(with.ok()) << with.error().message;
  // Abandoned, and re-attempted for free in the same tick (no retry delay:
  // not the target's fault).
  EXPECT_TRUE(std::any_of(log_.begin(), log_.end(), [](const std::string& line) {
    return line.find(": abandoned (") != std::string::npos;
  })) << ::testing::PrintToString(log_);
  ASSERT_EQ(with->claimed.size(), 1u);
  EXPECT_EQ(with->claimed[0].run.scheduled_for, kNow - 500);
  EXPECT_EQ(with->claimed[0].run.attempt, 1);
  EXPECT_EQ(runs().size(), 1u);
  EXPECT_EQ(runs().front().free_reattempts, 1);
}

// A slot whose last attempt is still dying (its group killed, its process
// not gone yet) cannot be claimed again; the tick asks to be run again
// shortly, so the re-attempt starts once the process is gone instead of at
// the next heartbeat.
TEST_F(Tick, ASlotWhoseLastAttemptIsStillDyingIsTriedAgainShortly) {
  add_loop("dying", kNow - 500);
  auto report = tick(kNow);
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->claimed.size(), 1u);
  const ProcessIdentity target{5'000, kNow};
  probe_->start(target);  // not the leader of its group: it outlives the group's kill here
  const ProcessIdentity dead{99'999, kNow};  // its supervisor, never started in the probe
  ASSERT_TRUE(store_->record_process(report->claimed[0].claim, target, 6'000, dead, kNow + 1).ok());
  auto refused = tick(kNow + 3, /*recover=*/true);
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_TRUE(refused->claimed.empty());
  EXPECT_TRUE(refused->retry_soon);
  EXPECT_EQ(runs().front().status, RunStatus::kAbandoned);
  probe_->stop(target.pid);
  auto retried = tick(kNow + 103);
  ASSERT_TRUE(retried.ok()) << retried.error().message;
  ASSERT_EQ(retried->claimed.size(), 1u);
  EXPECT_EQ(retried->claimed[0].run.scheduled_for, kNow - 500);
}

TEST_F(Tick, LoopsPastTheirExpiryExpire) {
  Loop expiring = add_loop("expiring", kNow + kMinute);
  expiring.expires_at = kNow - 1;
  ASSERT_TRUE(store_->update_loop_parts(expiring, {true, false}, {}, kNow - 600).ok());
  auto skipped = tick(kNow, /*recover=*/false, /*expire=*/false);
  ASSERT_TRUE(skipped.ok()) << skipped.error().message;
  EXPECT_EQ(loop(expiring.id).status, LoopStatus::kActive);
  auto report = tick(kNow);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(loop(expiring.id).status, LoopStatus::kExpired);
}

TEST(TickCooldowns, OnlyAgentLoopsOnACoolingAccountWait) {
  Loop command;
  command.target.argv = {"true"};
  EXPECT_EQ(cooldown_of({}, command), std::nullopt);
  EXPECT_EQ(cooldown_of({{"claude", kNow}}, command), std::nullopt);
}

TEST(FinishedLine, NamesTheRunLoopSlotAttemptAndOutcome) {
  orrery::Run run;
  run.id = "019a";
  run.loop_name = "nightly";
  run.scheduled_for = kNow;
  run.attempt = 2;
  run.status = RunStatus::kFailed;
  run.duration_ms = 1'500;
  run.exit_code = 3;
  run.error = "exit status 3";
  EXPECT_EQ(finished_line(run),
            "run 019a of loop nightly failed (slot 2026-12-01T00:00:00.000Z, attempt 2, 1s500ms, "
            "exit 3)");
  run.status = RunStatus::kTimedOut;
  run.exit_code.reset();
  run.error = "timed out after 1s";
  EXPECT_EQ(finished_line(run),
            "run 019a of loop nightly timed_out (slot 2026-12-01T00:00:00.000Z, attempt 2, "
            "1s500ms): timed out after 1s");
}

}  // namespace
}  // namespace orrery
