#include "engine/daemon_lease.h"

#include <gtest/gtest.h>

#include "store/sqlite/sqlite_store.h"
#include "support/fake_probe.h"
#include "support/temp_dir.h"

namespace orrery {
namespace {

constexpr TimeMs kNow = 1'796'083'200'000;  // 2026-12-01T00:00:00.000Z

TEST(DaemonLease, TtlWithinLimitsIsAccepted) {
  const std::pair<const char*, DurationMs> cases[] = {
      {"3s", 3'000}, {"30s", 30'000}, {"1m", 60'000}, {"1h", 3'600'000}, {"3500ms", 3'500}};
  for (const auto& [text, expected] : cases) {
    auto ttl = parse_lease_ttl(text);
    ASSERT_TRUE(ttl.ok()) << text << ": " << ttl.error().message;
    EXPECT_EQ(*ttl, expected) << text;
  }
}

TEST(DaemonLease, TtlOutsideLimitsIsAUsageErrorNamingTheOption) {
  for (const char* text : {"0", "0s", "1s", "2999ms", "1h1ms", "2h", "-1s", "abc", ""}) {
    auto ttl = parse_lease_ttl(text);
    ASSERT_FALSE(ttl.ok()) << text;
    EXPECT_EQ(ttl.error().code, ErrorCode::kUsage) << text;
    EXPECT_EQ(ttl.error().message.rfind("--lease-ttl", 0), 0u) << ttl.error().message;
  }
  EXPECT_NE(parse_lease_ttl("1s").error().message.find("minimum of 3s"), std::string::npos);
  EXPECT_NE(parse_lease_ttl("2h").error().message.find("maximum of 1h"), std::string::npos);
}

TEST(DaemonLease, HeartbeatIsAThirdOfTheTtl) {
  EXPECT_EQ(heartbeat_interval(30'000), 10'000);
  EXPECT_EQ(heartbeat_interval(3'000), 1'000);
  EXPECT_EQ(heartbeat_interval(3'600'000), 1'200'000);
}

class LeaseStore : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(
        {dir_.file("orrery.db"), sqlite::Synchronous::kNormal, 5000, probe_, kNow});
    ASSERT_TRUE(opened.ok());
    store_ = std::move(*opened);
    probe_->start(first_);
    probe_->start(second_);
  }

  testing::TempDir dir_;
  std::shared_ptr<testing::FakeProbe> probe_ = std::make_shared<testing::FakeProbe>();
  std::unique_ptr<SqliteStore> store_;
  ProcessIdentity first_{1111, kNow - 5000};
  ProcessIdentity second_{2222, kNow - 1000};
};

TEST_F(LeaseStore, AHeldLeaseIsAConflictNamingItsHolder) {
  auto held = acquire_lease(*store_, first_, 30'000, kNow);
  ASSERT_TRUE(held.ok()) << held.error().message;
  for (TimeMs later : {TimeMs(0), TimeMs(1), TimeMs(29'999)}) {
    auto refused = acquire_lease(*store_, second_, 30'000, kNow + later);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
    EXPECT_EQ(refused.error().message, "another daemon holds the lease: pid 1111 on " +
                                           probe_->host_name() + " since 2026-12-01T00:00:00.000Z");
  }
}

TEST_F(LeaseStore, AnExpiredOrDeadHoldersLeaseIsTakenWithANewGeneration) {
  auto first = acquire_lease(*store_, first_, 30'000, kNow);
  ASSERT_TRUE(first.ok());
  auto after_expiry = acquire_lease(*store_, second_, 30'000, kNow + 30'000);
  ASSERT_TRUE(after_expiry.ok()) << after_expiry.error().message;
  EXPECT_GT(after_expiry->generation, first->generation);
  probe_->stop(second_.pid);
  auto after_death = acquire_lease(*store_, first_, 30'000, kNow + 30'001);
  ASSERT_TRUE(after_death.ok()) << after_death.error().message;
  EXPECT_GT(after_death->generation, after_expiry->generation);
}

TEST_F(LeaseStore, ALostLeaseIsRecognised) {
  auto first = acquire_lease(*store_, first_, 30'000, kNow);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(acquire_lease(*store_, second_, 30'000, kNow + 40'000).ok());
  auto beat = store_->heartbeat_daemon_lease(first->lease_id, 30'000, kNow + 40'001);
  ASSERT_FALSE(beat.ok());
  EXPECT_TRUE(is_lease_lost(beat.error()));
  auto fenced = store_->check_fence({first->lease_id}, kNow + 40'001);
  ASSERT_FALSE(fenced.ok());
  EXPECT_TRUE(is_lease_lost(fenced.error()));
}

TEST(DaemonLeaseErrors, OnlyALostLeaseCountsAsLost) {
  EXPECT_TRUE(is_lease_lost(conflict_error("daemon lease lost")));
  EXPECT_FALSE(is_lease_lost(conflict_error("loop x changed while it was being updated")));
  EXPECT_FALSE(is_lease_lost(unavailable_error("the database is busy")));
  EXPECT_FALSE(is_lease_lost(internal_error("daemon lease lost")));
}

}  // namespace
}  // namespace orrery
