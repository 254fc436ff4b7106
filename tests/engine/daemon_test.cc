#include "engine/daemon.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/ids.h"
#include "engine/daemon_lease.h"
#include "exec/clock.h"
#include "exec/recovery.h"
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

}  // namespace
}  // namespace orrery
