#include "engine/daemon.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "engine/daemon_lease.h"
#include "exec/clock.h"
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
  EXPECT_NE(result.error().message.find("pid 31337 on test-host"), std::string::npos)
      << result.error().message;
}

}  // namespace
}  // namespace orrery
