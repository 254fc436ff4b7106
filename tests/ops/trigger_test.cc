// ops::trigger_loop over a real SQLite store with the fake launcher and
// fake processes: what each overlap policy does while a run is in progress,
// --force, --wait without a daemon, an archived loop, a supervisor that
// cannot start, and a loop left to the runners whose labels it needs.
#include "ops/trigger.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <array>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/ids.h"
#include "engine/daemon_lease.h"
#include "support/fake_launcher.h"
#include "support/fake_processes.h"
#include "support/sqlite_test_store.h"

namespace orrery {
namespace {

using testing::FakeLauncher;
using testing::FakeProcesses;

constexpr TimeMs kNow = 1'796'083'200'000;  // 2026-12-01T00:00:00.000Z
constexpr DurationMs kMinute = 60'000;

// Fake processes whose supervisors, told SIGTERM, finish their runs
// cancelled, as a real supervisor does.
class StoppingProcesses final : public ProcessControl {
 public:
  bool is_alive(const ProcessIdentity& process) const override { return fake.is_alive(process); }
  std::string host_name() const override { return fake.host_name(); }
  bool send_signal(pid_t pid, int signal) override {
    const bool sent = fake.send_signal(pid, signal);
    if (sent && signal == SIGTERM && on_term) on_term(pid);
    return sent;
  }
  std::optional<TimeMs> start_time(pid_t pid) const override { return fake.start_time(pid); }

  FakeProcesses fake;
  std::function<void(pid_t)> on_term;
};

class OpsTrigger : public ::testing::Test {
 protected:
  OpsTrigger() {
    processes_.on_term = [this](pid_t pid) {
      RunOutcome cancelled;
      cancelled.status = RunStatus::kCancelled;
      for (const FakeLauncher::Launch& launch : launcher_.launches()) {
        if (launch.pid != pid) continue;
        EXPECT_TRUE(store_->finish_claim(launch.work.claim, cancelled, kNow).ok());
      }
      processes_.fake.stop(pid);
    };
  }

  Loop add_loop(const std::string& name, OverlapPolicy overlap, bool archived = false,
                std::vector<EnvVar> machine = {}) {
    Loop loop;
    std::array<std::uint8_t, 10> bytes{};
    bytes[0] = std::uint8_t(++loops_);
    loop.id = make_id(kNow, bytes);
    loop.name = name;
    loop.overlap = overlap;
    loop.schedule.type = ScheduleType::kInterval;
    loop.schedule.every_ms = kMinute;
    loop.target.argv = {"/bin/true"};
    loop.next_run_at = kNow + kMinute;
    loop.created_at = loop.updated_at = kNow;
    loop.machine = std::move(machine);
    if (archived) {
      loop.archived = true;
      loop.archived_from_status = loop.status;
      loop.status = LoopStatus::kPaused;
    }
    const Status created = store_->create_loop(loop);
    EXPECT_TRUE(created.ok()) << created.error().message;
    return loop;
  }

  ops::TriggerContext context(TimeMs now = kNow, bool shared_database = false) {
    return {*store_, store_.dir().path(), shared_database, launcher_, processes_, "trigger@test:1",
            now};
  }

  Result<ops::Triggered> trigger(const std::string& loop, bool force = false, bool wait = false,
                                 TimeMs now = kNow) {
    return ops::trigger_loop(context(now), {loop, force, wait, false});
  }

  // The loop's run in progress, started by a trigger.
  orrery::Run running_run(const std::string& loop) {
    auto started = trigger(loop, true, false, kNow - kMinute);
    EXPECT_TRUE(started.ok() && started->outcome == ops::TriggerOutcome::kStarted);
    return started.ok() ? started->run : orrery::Run{};
  }

  std::int64_t runs_stored() { return store_->count_runs(std::nullopt).value(); }

  RunStatus status_of(const std::string& run_id) {
    auto run = store_->get_run(run_id);
    EXPECT_TRUE(run.ok() && run->has_value());
    return run.ok() && run->has_value() ? (*run)->status : RunStatus::kSkipped;
  }

  testing::SqliteTestStore store_{kNow - kMinute};
  testing::FakeClock clock_{kNow};
  StoppingProcesses processes_;
  FakeLauncher launcher_{*store_, clock_, processes_.fake};
  int loops_ = 0;
};

TEST_F(OpsTrigger, WithNothingInProgressEveryPolicyStartsTheRunHere) {
  for (OverlapPolicy overlap : {OverlapPolicy::kSkip, OverlapPolicy::kQueue, OverlapPolicy::kAllow,
                                OverlapPolicy::kReplace}) {
    for (bool wait : {false, true}) {
      const std::string name = std::string(overlap_name(overlap)) + (wait ? "-wait" : "");
      const Loop loop = add_loop(name, overlap);
      auto triggered = trigger(name, false, wait);
      ASSERT_TRUE(triggered.ok()) << name << ": " << triggered.error().message;
      EXPECT_EQ(triggered->outcome, ops::TriggerOutcome::kStarted) << name;
      EXPECT_EQ(triggered->run.loop_id, loop.id);
      EXPECT_EQ(triggered->run.scheduled_for, kNow);
      EXPECT_EQ(status_of(triggered->run.id), RunStatus::kRunning);
      ASSERT_FALSE(launcher_.launches().empty());
      EXPECT_EQ(launcher_.launches().back().work.detach, !wait) << name;
      EXPECT_EQ(triggered->supervisor.pid, launcher_.launches().back().pid);
    }
  }
}

TEST_F(OpsTrigger, SkipRefusesWhileARunIsInProgressAndStoresNothing) {
  add_loop("skipper", OverlapPolicy::kSkip);
  const orrery::Run running = running_run("skipper");
  const std::int64_t before = runs_stored();
  auto refused = trigger("skipper");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  EXPECT_NE(refused.error().message.find("skipper"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find(running.id), std::string::npos) << refused.error().message;
  EXPECT_EQ(runs_stored(), before);
  EXPECT_EQ(launcher_.launches().size(), 1u);
}

TEST_F(OpsTrigger, ForceAndAllowRunAlongsideTheRunInProgress) {
  for (auto [name, overlap, force] : std::vector<std::tuple<std::string, OverlapPolicy, bool>>{
           {"forced-skip", OverlapPolicy::kSkip, true},
           {"forced-queue", OverlapPolicy::kQueue, true},
           {"forced-replace", OverlapPolicy::kReplace, true},
           {"allowed", OverlapPolicy::kAllow, false}}) {
    add_loop(name, overlap);
    const orrery::Run running = running_run(name);
    auto triggered = trigger(name, force);
    ASSERT_TRUE(triggered.ok()) << name << ": " << triggered.error().message;
    EXPECT_EQ(triggered->outcome, ops::TriggerOutcome::kStarted) << name;
    EXPECT_EQ(status_of(running.id), RunStatus::kRunning) << name << ": left alone";
    EXPECT_EQ(status_of(triggered->run.id), RunStatus::kRunning) << name;
  }
  EXPECT_TRUE(processes_.fake.signals().empty());
}

TEST_F(OpsTrigger, QueueHoldsOneQueuedRunBehindTheRunInProgressAndRefusesASecond) {
  add_loop("queuer", OverlapPolicy::kQueue);
  const orrery::Run running = running_run("queuer");
  auto queued = trigger("queuer");
  ASSERT_TRUE(queued.ok()) << queued.error().message;
  EXPECT_EQ(queued->outcome, ops::TriggerOutcome::kQueued);
  EXPECT_EQ(queued->behind, running.id);
  EXPECT_EQ(status_of(queued->run.id), RunStatus::kQueued);
  EXPECT_EQ(launcher_.launches().size(), 1u) << "the daemon starts a queued run";
  const std::int64_t before = runs_stored();
  auto second = trigger("queuer", false, false, kNow + 5);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, ErrorCode::kConflict);
  EXPECT_NE(second.error().message.find(queued->run.id), std::string::npos)
      << second.error().message;
  EXPECT_EQ(runs_stored(), before);
}

TEST_F(OpsTrigger, QueueForACallerThatWaitsNeedsALiveDaemon) {
  add_loop("patient", OverlapPolicy::kQueue);
  running_run("patient");
  const std::int64_t before = runs_stored();
  auto refused = trigger("patient", false, true);
  ASSERT_FALSE(refused.ok()) << "queued with no daemon to start it";
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  EXPECT_EQ(runs_stored(), before);

  const ProcessIdentity daemon{4242, kNow - kMinute};
  store_.probe().start(daemon);
  ASSERT_TRUE(acquire_lease(*store_, daemon, 3'600'000, kNow - kMinute).ok());
  auto queued = trigger("patient", false, true);
  ASSERT_TRUE(queued.ok()) << queued.error().message;
  EXPECT_EQ(queued->outcome, ops::TriggerOutcome::kQueued);
}

TEST_F(OpsTrigger, ReplaceStopsTheRunsInProgressThenStartsItsOwn) {
  add_loop("replacer", OverlapPolicy::kReplace);
  const orrery::Run first = running_run("replacer");
  const orrery::Run second =
      ops::trigger_loop(context(kNow - kMinute + 1), {"replacer", true, false, false}).value().run;
  auto triggered = trigger("replacer");
  ASSERT_TRUE(triggered.ok()) << triggered.error().message;
  EXPECT_EQ(triggered->outcome, ops::TriggerOutcome::kStarted);
  EXPECT_EQ(status_of(first.id), RunStatus::kCancelled);
  EXPECT_EQ(status_of(second.id), RunStatus::kCancelled);
  EXPECT_EQ(status_of(triggered->run.id), RunStatus::kRunning);
  int terms = 0;
  for (const FakeProcesses::Signal& signal : processes_.fake.signals()) {
    EXPECT_EQ(signal.signal, SIGTERM);
    ++terms;
  }
  EXPECT_EQ(terms, 2);
}

TEST_F(OpsTrigger, ReplaceSignalsNoSupervisorThatIsGoneOrAnotherProcess) {
  add_loop("stale", OverlapPolicy::kReplace);
  const orrery::Run running = running_run("stale");
  processes_.fake.stop(launcher_.launches().front().pid);  // its supervisor died
  auto triggered = trigger("stale");
  ASSERT_TRUE(triggered.ok()) << triggered.error().message;
  EXPECT_EQ(triggered->outcome, ops::TriggerOutcome::kStarted);
  EXPECT_TRUE(processes_.fake.signals().empty());
  EXPECT_EQ(status_of(running.id), RunStatus::kRunning) << "recovery's to finish";
}

TEST_F(OpsTrigger, AnArchivedOrUnknownLoopIsNotTriggered) {
  add_loop("shelved", OverlapPolicy::kAllow, true);
  auto archived = trigger("shelved");
  ASSERT_FALSE(archived.ok());
  EXPECT_EQ(archived.error().code, ErrorCode::kConflict);
  EXPECT_NE(archived.error().message.find("archived"), std::string::npos);
  auto unknown = trigger("nowhere");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(runs_stored(), 0);
  EXPECT_TRUE(launcher_.launches().empty());
}

TEST_F(OpsTrigger, ARunWhoseSupervisorCannotStartIsFailedWithWhy) {
  add_loop("doomed", OverlapPolicy::kSkip);
  launcher_.script = {FakeLauncher::Next::kFails};
  auto triggered = trigger("doomed");
  ASSERT_TRUE(triggered.ok()) << triggered.error().message;
  EXPECT_EQ(triggered->outcome, ops::TriggerOutcome::kUnstarted);
  ASSERT_TRUE(triggered->unstarted.has_value());
  EXPECT_NE(triggered->unstarted->message.find("fork failed (test)"), std::string::npos);
  EXPECT_EQ(triggered->run.status, RunStatus::kFailed);
  EXPECT_EQ(status_of(triggered->run.id), RunStatus::kFailed);
}

TEST_F(OpsTrigger, ManualSlotsTakenAtTheSameInstantMoveOnByAMillisecond) {
  add_loop("burst", OverlapPolicy::kAllow);
  std::vector<TimeMs> slots;
  for (int i = 0; i < 5; ++i) {
    auto triggered = trigger("burst");
    ASSERT_TRUE(triggered.ok()) << triggered.error().message;
    slots.push_back(triggered->run.scheduled_for);
  }
  EXPECT_EQ(slots, (std::vector<TimeMs>{kNow, kNow + 1, kNow + 2, kNow + 3, kNow + 4}));
}

TEST_F(OpsTrigger, OnASharedDatabaseALoopThisHostLacksTheLabelsForIsLeftToRunners) {
  add_loop("gpu-only", OverlapPolicy::kAllow, false, {{"gpu", "yes"}});
  auto left = ops::trigger_loop(context(kNow, true), {"gpu-only", false, false, false});
  ASSERT_TRUE(left.ok()) << left.error().message;
  EXPECT_EQ(left->outcome, ops::TriggerOutcome::kLeftToRunners);
  EXPECT_EQ(status_of(left->run.id), RunStatus::kPending);
  EXPECT_TRUE(launcher_.launches().empty());

  auto here = ops::trigger_loop(context(kNow, true), {"gpu-only", false, false, true});
  ASSERT_TRUE(here.ok()) << here.error().message;
  EXPECT_EQ(here->outcome, ops::TriggerOutcome::kStarted);
  // A SQLite file has no runners on other hosts: labels do not matter.
  auto local = ops::trigger_loop(context(kNow, false), {"gpu-only", false, false, false});
  ASSERT_TRUE(local.ok()) << local.error().message;
  EXPECT_EQ(local->outcome, ops::TriggerOutcome::kStarted);
}

}  // namespace
}  // namespace orrery
