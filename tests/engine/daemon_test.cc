#include "engine/daemon.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/ids.h"
#include "engine/daemon_deadline.h"
#include "engine/daemon_fakes.h"
#include "engine/daemon_lease.h"
#include "exec/clock.h"
#include "exec/recovery.h"
#include "exec/supervisor.h"
#include "store/sqlite/fault_vfs.h"
#include "store/sqlite/sqlite_store.h"
#include "support/fake_probe.h"
#include "support/temp_dir.h"

namespace orrery {
namespace {

TEST(StoreBackoff, StartsAt100msAndDoublesUpTo30s) {
  StoreBackoff backoff;
  const DurationMs expected[] = {100,   200,    400,    800,    1'600,  3'200,
                                 6'400, 12'800, 25'600, 30'000, 30'000, 30'000};
  for (DurationMs delay : expected) EXPECT_EQ(backoff.next(), delay);
  backoff.reset();
  EXPECT_EQ(backoff.next(), 100);
  EXPECT_EQ(backoff.next(), 200);
}

// `daemon --once` on a store with nothing due (nothing is started, so no
// supervisor is needed).
class DaemonOnce : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(
        {dir_.file("orrery.db"), sqlite::Synchronous::kNormal, 5000, probe_, wall_clock_now()});
    ASSERT_TRUE(opened.ok());
    store_ = std::move(*opened);
    options_.location = {dir_.path(), ""};
    options_.once = true;
    options_.started_at = wall_clock_now();
    options_.lease_ttl_ms = 3'000;
    log_.emplace(DaemonLog::open_file(dir_.file("daemon.log")));
  }

  testing::TempDir dir_;
  std::shared_ptr<testing::FakeProbe> probe_ = std::make_shared<testing::FakeProbe>();
  std::unique_ptr<SqliteStore> store_;
  DaemonOptions options_;
  std::optional<Result<DaemonLog>> log_;
};

TEST_F(DaemonOnce, NothingDueStartsNothingAndReleasesTheLease) {
  ASSERT_TRUE(log_->ok());
  auto result = run_daemon(*store_, options_, **log_);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->started.empty());
  EXPECT_FALSE(result->interrupted);
  auto lease = store_->get_daemon_lease();
  ASSERT_TRUE(lease.ok() && lease->has_value());
  EXPECT_LE((*lease)->expires_at, wall_clock_now());                // released
  EXPECT_FALSE(std::filesystem::exists(dir_.file("daemon.sock")));  // --once does not listen
}

TEST_F(DaemonOnce, AHeldLeaseIsAConflictAndNothingRuns) {
  ASSERT_TRUE(log_->ok());
  const ProcessIdentity other{31'337, wall_clock_now() - 1'000};
  probe_->start(other);
  ASSERT_TRUE(acquire_lease(*store_, other, 60'000, wall_clock_now()).ok());
  auto result = run_daemon(*store_, options_, **log_);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kConflict);
  EXPECT_NE(result.error().message.find("pid 31337 on " + probe_->host_name()), std::string::npos)
      << result.error().message;
}

// A supervisor that dies before it records itself (here: at once) is
// recorded by the daemon, which watches it, so recovery finishes its run at
// once instead of after the start grace.
class DaemonForked : public ::testing::Test {
 protected:
  void SetUp() override {
    // Started before any database is opened, as the daemon command does.
    auto forker = SupervisorForker::start(
        [] { return SupervisorForker::Runner([](const ForkRequest&) { return 70; }); });
    ASSERT_TRUE(forker.ok()) << forker.error().message;
    forker_.emplace(std::move(*forker));
    auto opened = SqliteStore::open(
        {dir_.file("orrery.db"), sqlite::Synchronous::kNormal, 5000, probe_, wall_clock_now()});
    ASSERT_TRUE(opened.ok());
    store_ = std::move(*opened);
  }

  testing::TempDir dir_;
  std::optional<SupervisorForker> forker_;
  std::shared_ptr<testing::FakeProbe> probe_ = std::make_shared<testing::FakeProbe>();
  std::unique_ptr<SqliteStore> store_;
};

TEST_F(DaemonForked, ASupervisorThatDiesBeforeRecordingItselfIsRecordedAndItsRunRecoveredAtOnce) {
  const TimeMs start = wall_clock_now();
  Loop loop;
  loop.id = make_id(start, {1});
  loop.name = "dies-at-once";
  loop.schedule.type = ScheduleType::kInterval;
  loop.schedule.every_ms = 3'600'000;
  loop.target.argv = {"true"};
  loop.next_run_at = start;
  loop.created_at = loop.updated_at = start;
  ASSERT_TRUE(store_->create_loop(loop).ok());
  DaemonOptions options;
  options.location = {dir_.path(), ""};
  options.once = true;
  options.started_at = start;
  options.lease_ttl_ms = 3'000;
  options.forker = &*forker_;
  auto log = DaemonLog::open_file(dir_.file("daemon.log"));
  ASSERT_TRUE(log.ok());

  auto result = run_daemon(*store_, options, *log);
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_FALSE(result->started.empty());
  auto run = store_->get_run(result->started.front());
  ASSERT_TRUE(run.ok() && run->has_value());
  EXPECT_EQ((*run)->status, RunStatus::kAbandoned) << run_status_name((*run)->status);
  ASSERT_TRUE((*run)->supervisor.has_value());  // recorded by the daemon
  EXPECT_TRUE((*run)->supervisor->started_at.has_value());
  ASSERT_TRUE((*run)->finished_at && (*run)->started_at);
  EXPECT_LT(*(*run)->finished_at - *(*run)->started_at, kSupervisorStartGraceMs);
}

// The daemon through its seams (engine/daemon_fakes.h): a clock that only
// the fake events move, a table of processes, a launcher that records, and
// a real SQLite store in a temporary directory, opened on the same fake
// processes. Nothing is spawned and nothing sleeps.
constexpr TimeMs kStart = 1'796'083'200'000;  // 2026-12-01T00:00:00.000Z
constexpr DurationMs kTtl = 3'000;            // heartbeats every second
constexpr DurationMs kMinute = 60'000;
using Next = testing::FakeLauncher::Next;

class DaemonFakes : public ::testing::Test {
 protected:
  void SetUp() override {
    // Not under systemd: no READY=1 and no watchdog from a test.
    ::unsetenv("NOTIFY_SOCKET");
    ::unsetenv("WATCHDOG_USEC");
    processes_->stamp_with(clock_);
    processes_->start(self_);
    open_store("");
    options_.location = {dir_.path(), ""};
    options_.started_at = kStart;
    options_.lease_ttl_ms = kTtl;
    options_.database_path = dir_.file("orrery.db");
  }

  void TearDown() override { sqlite::disarm_fault(); }

  // The store, through the fault-injecting VFS when `vfs` names it.
  void open_store(const std::string& vfs) {
    launcher_.reset();
    store_.reset();
    SqliteOptions open;
    open.path = dir_.file("orrery.db");
    open.probe = processes_;
    open.now = kStart;
    open.vfs = vfs;
    auto opened = SqliteStore::open(open);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    store_ = std::move(*opened);
    launcher_.emplace(*store_, clock_, *processes_, [this](pid_t pid) { events_.exit(pid); });
  }

  Result<DaemonResult> run() {
    auto log = DaemonLog::open_file(dir_.file("daemon.log"));
    if (!log) return log.error();
    const DaemonSystem system{clock_, *processes_, events_, *launcher_, self_};
    auto result = run_daemon(*store_, options_, *log, system);
    EXPECT_FALSE(events_.overran()) << log_text();
    return result;
  }

  // Stops the daemon (SIGTERM) at the first wait at which `done` holds.
  void stop_when(std::function<bool()> done) {
    events_.on_wait = [this, done](std::optional<TimeMs>) {
      if (done()) events_.signal(SIGTERM);
    };
  }

  Loop add_loop(const std::string& name, TimeMs next_run_at, DurationMs every_ms,
                OverlapPolicy overlap = OverlapPolicy::kSkip, int max_attempts = 1) {
    Loop loop;
    loop.id = make_id(kStart - kMinute, {std::uint8_t(++loops_)});
    loop.name = name;
    loop.schedule.type = ScheduleType::kInterval;
    loop.schedule.every_ms = every_ms;
    loop.target.argv = {"true"};
    loop.overlap = overlap;
    loop.max_attempts = max_attempts;
    loop.next_run_at = next_run_at;
    loop.created_at = loop.updated_at = kStart - kMinute;
    EXPECT_TRUE(store_->create_loop(loop).ok());
    return loop;
  }

  orrery::Run run_of(const std::string& id) {
    auto run = store_->get_run(id);
    EXPECT_TRUE(run.ok() && run->has_value()) << id;
    return run.ok() && run->has_value() ? **run : orrery::Run{};
  }

  std::vector<orrery::Run> runs_of(const Loop& loop) {
    RunFilter filter;
    filter.loop_id = loop.id;
    auto runs = store_->list_runs(filter);
    EXPECT_TRUE(runs.ok());
    return runs.ok() ? *runs : std::vector<orrery::Run>{};
  }

  DaemonLease lease() {
    auto held = store_->get_daemon_lease();
    EXPECT_TRUE(held.ok() && held->has_value());
    return held.ok() && held->has_value() ? **held : DaemonLease{};
  }

  std::string log_text() const {
    std::ifstream in(dir_.file("daemon.log"));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  const std::vector<testing::FakeLauncher::Launch>& launches() const {
    return launcher_->launches();
  }

  testing::TempDir dir_;
  testing::FakeClock clock_{kStart};
  std::shared_ptr<testing::FakeProcesses> processes_ = std::make_shared<testing::FakeProcesses>();
  testing::FakeEvents events_{clock_};
  std::unique_ptr<SqliteStore> store_;
  std::optional<testing::FakeLauncher> launcher_;
  const ProcessIdentity self_{4000, kStart - kMinute};
  const ProcessIdentity other_{31'337, kStart - kMinute};  // another daemon
  DaemonOptions options_;
  int loops_ = 0;
};

TEST_F(DaemonFakes, ALeaseAnotherDaemonTookStopsItAtOnceWithTheConflictClaimingNothingMore) {
  const Loop loop = add_loop("due-after-the-pause", kStart + kTtl + 500, kMinute);
  processes_->start(other_);
  bool taken = false;
  events_.on_wait = [&](std::optional<TimeMs>) {
    if (taken) return;
    taken = true;
    // The daemon was stopped past its ttl (a pause); another daemon took the lease.
    clock_.advance(kTtl + 1'000);
    ASSERT_TRUE(acquire_lease(*store_, other_, kMinute, clock_.wall_now()).ok());
  };

  auto result = run();
  ASSERT_FALSE(result.ok()) << log_text();
  EXPECT_EQ(result.error().code, ErrorCode::kConflict);
  EXPECT_TRUE(is_lease_lost(result.error())) << result.error().message;
  const DaemonLease held = lease();
  EXPECT_EQ(held.holder.pid, other_.pid);
  EXPECT_EQ(held.generation, 2);
  EXPECT_GT(held.expires_at, clock_.wall_now());  // the other's, not released by the loser
  EXPECT_TRUE(launches().empty());
  EXPECT_TRUE(runs_of(loop).empty()) << "a slot due after the loss was claimed";
  EXPECT_EQ(events_.deadlines().size(), 1u);  // stopped at the first heartbeat after it
}

TEST_F(DaemonFakes, ARunnerTakesTheLeaseOverJustAfterItExpiresAndThenSchedules) {
  options_.shared_database = true;
  processes_->start(other_);  // alive: only the end of its lease frees it
  auto held = acquire_lease(*store_, other_, kTtl, kStart - 1'000);
  ASSERT_TRUE(held.ok());
  const TimeMs held_until = held->expires_at;
  const Loop loop = add_loop("after-the-takeover", held_until + 10'000, kMinute);
  stop_when([&] { return !launches().empty(); });

  auto result = run();
  ASSERT_TRUE(result.ok()) << result.error().message << log_text();
  const DaemonLease taken = lease();
  EXPECT_EQ(taken.holder.pid, self_.pid);
  EXPECT_EQ(taken.generation, 2);
  EXPECT_GE(taken.acquired_at, held_until);
  EXPECT_LE(taken.acquired_at, held_until + kLeaseCheckSlackMs);
  EXPECT_LE(taken.expires_at, clock_.wall_now());  // released when it stopped
  // The slot planned after the takeover was left pending, then claimed by
  // this runner and started when it fell due.
  ASSERT_EQ(launches().size(), 1u);
  const orrery::Run run = run_of(launches()[0].work.claim.id);
  EXPECT_EQ(run.loop_id, loop.id);
  EXPECT_EQ(run.scheduled_for, held_until + 10'000);
  EXPECT_EQ(run.claimed_by, "daemon@" + processes_->host_name() + ":4000");
  EXPECT_EQ(launches()[0].at, held_until + 10'000);
  EXPECT_NE(log_text().find("running as a runner"), std::string::npos);
}

// Every write fails (a full disk) from the first wait until the daemon's
// lease ran out, with a slot falling due meanwhile.
class DaemonStoreFaults : public DaemonFakes {
 protected:
  void SetUp() override {
    DaemonFakes::SetUp();
    sqlite::register_fault_vfs();
    open_store(sqlite::kFaultVfsName);
  }

  // At each wait: the faults start at the first; once the lease ran out,
  // they end and `after_faults` runs (once).
  void fail_writes_until_the_lease_ran_out(std::function<void()> after_faults) {
    events_.on_wait = [this, after_faults](std::optional<TimeMs>) {
      if (!armed_ && !ended_) {
        sqlite::arm_fault({sqlite::FaultOp::kWrite, SQLITE_FULL, 0, 1'000'000, ""});
        armed_ = true;
      } else if (armed_ && clock_.wall_now() > kStart + kTtl) {
        failed_writes_ = sqlite::fault_hits();
        sqlite::disarm_fault();
        armed_ = false;
        ended_ = true;
        after_faults();
      }
      if (!launches().empty()) events_.signal(SIGTERM);
    };
  }

  bool armed_ = false;
  bool ended_ = false;
  int failed_writes_ = 0;
};

TEST_F(DaemonStoreFaults, TheLeaseThatRanOutWhileWritesFailedIsTakenAgainAndTheSlotRuns) {
  const Loop loop = add_loop("due-during-the-faults", kStart + 2'000, kMinute);
  fail_writes_until_the_lease_ran_out([] {});

  auto result = run();
  ASSERT_TRUE(result.ok()) << result.error().message << log_text();
  EXPECT_GT(failed_writes_, 0);
  const DaemonLease held = lease();
  EXPECT_EQ(held.holder.pid, self_.pid);
  EXPECT_EQ(held.generation, 2) << log_text();
  // The slot is claimed once writes succeed again, under the new lease.
  ASSERT_EQ(launches().size(), 1u) << log_text();
  EXPECT_GT(launches()[0].at, kStart + kTtl);
  const std::vector<orrery::Run> runs = runs_of(loop);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].scheduled_for, kStart + 2'000);
  EXPECT_GE(*runs[0].started_at, held.acquired_at);
  const std::string log = log_text();
  EXPECT_NE(log.find("lease heartbeat failed"), std::string::npos) << log;
  EXPECT_NE(log.find("taken again after store errors"), std::string::npos) << log;
}

TEST_F(DaemonStoreFaults, TheLeaseAnotherDaemonTookWhileWritesFailedIsLostAndNothingIsClaimed) {
  const Loop loop = add_loop("due-during-the-faults", kStart + 2'000, kMinute);
  processes_->start(other_);
  fail_writes_until_the_lease_ran_out(
      [this] { ASSERT_TRUE(acquire_lease(*store_, other_, kMinute, clock_.wall_now()).ok()); });

  auto result = run();
  ASSERT_FALSE(result.ok()) << log_text();
  EXPECT_TRUE(is_lease_lost(result.error())) << result.error().message;
  EXPECT_NE(result.error().message.find("after store errors"), std::string::npos)
      << result.error().message;
  const DaemonLease held = lease();
  EXPECT_EQ(held.holder.pid, other_.pid);
  EXPECT_GT(held.expires_at, clock_.wall_now());  // not released by the loser
  EXPECT_TRUE(launches().empty());
  EXPECT_TRUE(runs_of(loop).empty());
}

// Starting: an unavailable database (here a full disk) keeps the first
// lease from being taken; the daemon retries with the store backoff within
// its start patience (docs/daemon.md, "The lease").
class DaemonStartFaults : public DaemonStoreFaults {
 protected:
  void fail_every_write() {
    sqlite::arm_fault({sqlite::FaultOp::kWrite, SQLITE_FULL, 0, 1'000'000, ""});
  }
  // The waits' lengths, each from the clock when it began.
  std::vector<DurationMs> waits_;
  void record_waits(std::function<void(size_t)> at_wait) {
    events_.on_wait = [this, at_wait](std::optional<TimeMs> deadline) {
      if (deadline) waits_.push_back(*deadline - clock_.wall_now());
      at_wait(waits_.size());
    };
  }
};

TEST_F(DaemonStartFaults, TheFirstLeaseIsRetriedWhileTheStoreIsUnavailableThenTaken) {
  for (int failing_waits : {1, 2, 4}) {
    SCOPED_TRACE(failing_waits);
    waits_.clear();
    fail_every_write();
    bool leased = false;
    record_waits([&](size_t waits) {
      if (int(waits) == failing_waits) sqlite::disarm_fault();
      if (int(waits) > failing_waits && !leased) {
        leased = true;
        events_.signal(SIGTERM);
      }
    });
    const TimeMs began = clock_.wall_now();
    auto result = run();
    ASSERT_TRUE(result.ok()) << result.error().message << log_text();
    // 100, 200, 400, 800 ms: one backoff step per failed attempt.
    std::vector<DurationMs> expected;
    for (DurationMs delay = 100; int(expected.size()) < failing_waits; delay *= 2) {
      expected.push_back(delay);
    }
    ASSERT_GE(waits_.size(), expected.size());
    EXPECT_EQ(std::vector<DurationMs>(waits_.begin(), waits_.begin() + failing_waits), expected);
    const DaemonLease held = lease();
    EXPECT_EQ(held.holder.pid, self_.pid);
    EXPECT_GE(held.acquired_at, began + expected.back());
    EXPECT_NE(log_text().find("the lease could not be taken (disk full"), std::string::npos)
        << log_text();
  }
}

TEST_F(DaemonStartFaults, AStoreUnavailablePastThePatienceStopsTheStartWithItsError) {
  for (DurationMs patience : {0, 150, 1'000, 5'000}) {
    SCOPED_TRACE(patience);
    waits_.clear();
    options_.start_patience_ms = patience;
    fail_every_write();
    record_waits([](size_t) {});
    const TimeMs began = clock_.wall_now();
    auto result = run();
    sqlite::disarm_fault();
    ASSERT_FALSE(result.ok()) << log_text();
    EXPECT_EQ(result.error().code, ErrorCode::kUnavailable) << result.error().message;
    EXPECT_NE(result.error().message.find("disk full"), std::string::npos)
        << result.error().message;
    // It waited exactly its patience, the last wait cut to what was left.
    DurationMs waited = 0;
    for (DurationMs wait : waits_) waited += wait;
    EXPECT_EQ(waited, patience);
    EXPECT_EQ(clock_.wall_now() - began, patience);
    EXPECT_TRUE(launches().empty());
    auto held = store_->get_daemon_lease();
    ASSERT_TRUE(held.ok());
    EXPECT_FALSE(held->has_value() && (*held)->holder.pid == self_.pid &&
                 (*held)->expires_at > clock_.wall_now());
  }
}

TEST_F(DaemonStartFaults, ASignalWhileItWaitsToStartStopsItWithTheStoresError) {
  fail_every_write();
  record_waits([this](size_t waits) {
    if (waits == 2) events_.signal(SIGTERM);
  });
  auto result = run();
  sqlite::disarm_fault();
  ASSERT_FALSE(result.ok()) << log_text();
  EXPECT_EQ(result.error().code, ErrorCode::kUnavailable) << result.error().message;
  EXPECT_EQ(waits_.size(), 2u);
  EXPECT_TRUE(launches().empty());
}

TEST_F(DaemonFakes, ASupervisorThatDiesBeforeRecordingItselfIsRecordedItsRunAbandonedAndRetried) {
  const Loop loop = add_loop("dies-at-once", kStart, 3'600'000, OverlapPolicy::kSkip, 2);
  launcher_->script = {Next::kDiesBeforeRecording};
  events_.on_wait = [&](std::optional<TimeMs>) {
    if (launches().size() == 2) events_.signal(SIGTERM);
  };

  auto result = run();
  ASSERT_TRUE(result.ok()) << result.error().message << log_text();
  ASSERT_EQ(launches().size(), 2u) << log_text();
  const std::string first = launches()[0].work.claim.id;
  // Recorded by the daemon when it exited, within the start grace.
  const std::string recovered = "recovered run " + first +
                                " of loop dies-at-once: abandoned (the supervisor (pid 5001) "
                                "died before the run finished)";
  EXPECT_NE(log_text().find(recovered), std::string::npos) << log_text();
  EXPECT_LT(launches()[1].at - launches()[0].at, kSupervisorStartGraceMs);
  EXPECT_FALSE(events_.watching(testing::FakeLauncher::kFirstPid));
  // Re-attempted for free (not the target's fault): the same slot, at once,
  // under the same attempt number.
  const orrery::Run retry = run_of(launches()[1].work.claim.id);
  EXPECT_EQ(retry.loop_id, loop.id);
  EXPECT_EQ(retry.scheduled_for, kStart);
  EXPECT_EQ(retry.status, RunStatus::kRunning);
  EXPECT_EQ(retry.attempt, 1);
  EXPECT_EQ(retry.free_reattempts, 1);
  EXPECT_EQ(launches()[1].at, launches()[0].at);
}

TEST_F(DaemonFakes, ReplaceSendsSigtermToTheOldRunsSupervisorBeforeTheNewSlotStarts) {
  const DurationMs every = 45'500;
  const Loop loop = add_loop("replaced", kStart, every, OverlapPolicy::kReplace);
  stop_when([&] { return launches().size() == 2; });

  auto result = run();
  ASSERT_TRUE(result.ok()) << result.error().message << log_text();
  ASSERT_EQ(launches().size(), 2u) << log_text();
  const pid_t old_supervisor = launches()[0].pid;
  ASSERT_EQ(processes_->signals().size(), 1u) << log_text();
  EXPECT_EQ(processes_->signals()[0].pid, old_supervisor);
  EXPECT_EQ(processes_->signals()[0].signal, SIGTERM);
  EXPECT_EQ(processes_->signals()[0].at, kStart + every);
  EXPECT_EQ(launches()[1].signals_before, 1u);  // the old run stops first
  EXPECT_EQ(launches()[1].at, kStart + every);
  // The supervisor cancels its run itself: the daemon leaves the row to it.
  EXPECT_EQ(run_of(launches()[0].work.claim.id).status, RunStatus::kRunning);
  EXPECT_EQ(run_of(launches()[1].work.claim.id).scheduled_for, kStart + every);
  EXPECT_EQ(runs_of(loop).size(), 2u);
}

TEST_F(DaemonFakes, ReplaceStopsTheTargetsGroupWhenTheOldSupervisorIsGoneAndRecoveryEndsTheRun) {
  const DurationMs every = 45'500;  // the next slot falls between two heartbeats
  add_loop("replaced", kStart, every, OverlapPolicy::kReplace);
  const TimeMs next_slot = kStart + every;
  const pid_t supervisor = testing::FakeLauncher::kFirstPid;
  const int group = supervisor + testing::FakeLauncher::kTargetOffset;
  events_.on_wait = [&](std::optional<TimeMs> deadline) {
    // Gone just before the slot, its exit not yet seen by the daemon.
    if (deadline == next_slot) processes_->stop(supervisor);
    if (clock_.wall_now() >= next_slot + kKillGraceMs) events_.signal(SIGTERM);
  };

  auto result = run();
  ASSERT_TRUE(result.ok()) << result.error().message << log_text();
  EXPECT_FALSE(processes_->signalled(supervisor, SIGTERM));  // a dead pid is not signalled
  const auto& signals = processes_->signals();
  ASSERT_FALSE(signals.empty()) << log_text();
  EXPECT_EQ(signals[0].pid, -group);
  EXPECT_EQ(signals[0].signal, SIGTERM);
  EXPECT_EQ(signals[0].at, next_slot);
  bool killed_after_grace = false;
  for (const auto& sent : signals) {
    if (sent.pid == -group && sent.signal == SIGKILL && sent.at == next_slot + kKillGraceMs) {
      killed_after_grace = true;
    }
  }
  EXPECT_TRUE(killed_after_grace) << log_text();
  EXPECT_FALSE(processes_->group_alive(group));
  ASSERT_EQ(launches().size(), 2u);
  EXPECT_EQ(launches()[1].signals_before, 1u);  // SIGTERM to the group first
  const orrery::Run old_run = run_of(launches()[0].work.claim.id);
  EXPECT_EQ(old_run.status, RunStatus::kAbandoned) << old_run.error;
}

TEST_F(DaemonFakes, ALaunchThatFailsFailsTheRunWithTheReasonAndTheDaemonGoesOn) {
  const Loop loop = add_loop("cannot-start", kStart, kMinute);
  launcher_->script = {Next::kFails};
  stop_when([&] { return launches().size() == 2; });

  auto result = run();
  ASSERT_TRUE(result.ok()) << result.error().message << log_text();
  ASSERT_EQ(launches().size(), 2u) << log_text();
  const orrery::Run failed = run_of(launches()[0].work.claim.id);
  EXPECT_EQ(failed.status, RunStatus::kFailed);
  EXPECT_EQ(failed.error, "the supervisor could not start: fork failed (test)");
  EXPECT_EQ(launches()[0].pid, 0);
  // The next slot starts on time.
  const orrery::Run next = run_of(launches()[1].work.claim.id);
  EXPECT_EQ(next.loop_id, loop.id);
  EXPECT_EQ(next.scheduled_for, kStart + kMinute);
  EXPECT_EQ(launches()[1].at, kStart + kMinute);
  EXPECT_NE(log_text().find("fork failed (test)"), std::string::npos);
}

TEST_F(DaemonFakes, ACancelRequestFromAnotherHostSignalsTheRunsSupervisorAtTheNextHeartbeat) {
  options_.shared_database = true;
  add_loop("cancelled-elsewhere", kStart, 3'600'000);
  std::optional<TimeMs> requested;
  events_.on_wait = [&](std::optional<TimeMs>) {
    if (!requested && !launches().empty()) {
      auto asked =
          store_->request_cancel(launches()[0].work.claim.id, "by test", clock_.wall_now());
      ASSERT_TRUE(asked.ok());
      EXPECT_EQ(*asked, RunStatus::kRunning);  // asked of its runner
      requested = clock_.wall_now();
    }
    if (!processes_->signals().empty()) events_.signal(SIGTERM);
  };

  auto result = run();
  ASSERT_TRUE(result.ok()) << result.error().message << log_text();
  ASSERT_TRUE(requested.has_value());
  ASSERT_EQ(processes_->signals().size(), 1u) << log_text();
  EXPECT_EQ(processes_->signals()[0].pid, launches()[0].pid);
  EXPECT_EQ(processes_->signals()[0].signal, SIGTERM);
  EXPECT_LE(processes_->signals()[0].at, *requested + heartbeat_interval(kTtl));
}

}  // namespace
}  // namespace orrery
