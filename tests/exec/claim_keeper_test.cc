// ClaimKeeper's rules on a fake wall clock and a store whose heartbeats the
// test decides (docs/execution.md, "Heartbeats and finishing").
#include "exec/claim_keeper.h"

#include <gtest/gtest.h>

#include <functional>

#include "store/sqlite/sqlite_store.h"
#include "support/fake_probe.h"
#include "support/forwarding_roles.h"
#include "support/temp_dir.h"

namespace orrery {
namespace {

constexpr TimeMs kStart = 1'800'000'000'000;

// Heartbeats answer what `answer` says, after moving the fake clock on by
// `blocked_ms` (as a busy database would hold the caller).
class ScriptedLedger final : public testing::ForwardingLedger {
 public:
  ScriptedLedger(ClaimLedger& inner, TimeMs& clock) : ForwardingLedger(inner), clock_(clock) {}
  std::function<Status()> answer = [] { return Status{Ok{}}; };
  DurationMs blocked_ms = 0;
  std::vector<TimeMs> sent;

  Status heartbeat_claim(const Claim&, DurationMs, TimeMs now) override {
    sent.push_back(now);
    clock_ += blocked_ms;
    return answer();
  }

 private:
  TimeMs& clock_;
};

class ClaimKeeperTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(
        {dir_.file("orrery.db"), sqlite::Synchronous::kNormal, 5000, probe_, kStart});
    ASSERT_TRUE(opened.ok());
    inner_ = std::move(*opened);
    store_ = std::make_unique<ScriptedLedger>(*inner_, clock_);
  }

  ClaimKeeper keeper(DurationMs lease_ms, TimeMs lease_expires_at) {
    return ClaimKeeper(*store_, system_env(), Claim{"run", "test", "token"}, lease_ms,
                       lease_expires_at, dir_.path(), [this] { return clock_; });
  }

  testing::TempDir dir_;
  std::shared_ptr<testing::FakeProbe> probe_ = std::make_shared<testing::FakeProbe>();
  std::unique_ptr<SqliteStore> inner_;
  std::unique_ptr<ScriptedLedger> store_;
  TimeMs clock_ = kStart;
};

TEST_F(ClaimKeeperTest, OnlyAConflictLosesTheClaim) {
  for (const ErrorCode code :
       {ErrorCode::kUnavailable, ErrorCode::kInternal, ErrorCode::kUsage, ErrorCode::kNotFound}) {
    ClaimKeeper kept = keeper(6000, clock_ + 6000);
    store_->answer = [code] { return Status{Error{code, "the database is read-only"}}; };
    EXPECT_EQ(kept.beat(), ClaimKeeper::Beat::kRetrying) << int(code);
  }
  ClaimKeeper lost = keeper(6000, clock_ + 6000);
  store_->answer = [] { return Status{conflict_error("the claim was lost")}; };
  EXPECT_EQ(lost.beat(), ClaimKeeper::Beat::kLost);
  EXPECT_EQ(lost.lost_reason().code, ErrorCode::kConflict);
  EXPECT_EQ(lost.next_beat(), ClaimKeeper::Clock::time_point::max());
}

// The lease counts from the one the claim holds, not from when the keeper
// was made: a claim whose lease ends soon expires soon, whatever the loop's
// lease.
TEST_F(ClaimKeeperTest, TheFirstLeaseIsTheClaimsOwn) {
  for (const DurationMs left : {60, 100, 400}) {
    ClaimKeeper kept = keeper(60'000, clock_ + left);
    store_->answer = [] { return Status{unavailable_error("database busy")}; };
    ClaimKeeper::Beat beat = kept.beat();
    DurationMs waited = 0;
    while (beat == ClaimKeeper::Beat::kRetrying && waited < 60'000) {
      clock_ += 50;
      waited += 50;
      beat = kept.beat();
    }
    EXPECT_EQ(beat, ClaimKeeper::Beat::kExpired) << left;
    EXPECT_LE(waited, left) << left;
    EXPECT_EQ(kept.lost_reason().code, ErrorCode::kUnavailable);
  }
}

// A renewal that waited on a busy database stored the instant it sent: the
// lease counts from there, and a later failure runs out by that end.
TEST_F(ClaimKeeperTest, ARenewedLeaseCountsFromTheInstantStored) {
  for (const DurationMs blocked : {0, 300, 900}) {
    ClaimKeeper kept = keeper(1000, clock_ + 1000);
    store_->blocked_ms = blocked;
    store_->answer = [] { return Status{Ok{}}; };
    store_->sent.clear();
    ASSERT_EQ(kept.beat(), ClaimKeeper::Beat::kRenewed);
    EXPECT_EQ(kept.lease_end(), store_->sent.back() + 1000) << blocked;
    store_->blocked_ms = 0;
    store_->answer = [] { return Status{unavailable_error("database busy")}; };
    const bool room = clock_ + kFirstBackoff.count() < kept.lease_end();
    EXPECT_EQ(kept.beat(), room ? ClaimKeeper::Beat::kRetrying : ClaimKeeper::Beat::kExpired)
        << blocked;
  }
}

TEST(SupervisorBusyTimeout, IsASixthOfTheLeaseBetween50msAnd1s) {
  EXPECT_EQ(supervisor_busy_timeout_ms(1000), 166);
  EXPECT_EQ(supervisor_busy_timeout_ms(3000), 500);
  EXPECT_EQ(supervisor_busy_timeout_ms(6000), 1000);
  EXPECT_EQ(supervisor_busy_timeout_ms(3'600'000), 1000);
  EXPECT_EQ(supervisor_busy_timeout_ms(120), 50);
  EXPECT_EQ(supervisor_busy_timeout_ms(0), 50);
}

}  // namespace
}  // namespace orrery
