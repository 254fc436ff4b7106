// The fixture of the Store conformance suite (tests/store/*conformance_test.cc):
// a store of each backend — SQLite in a fresh directory, PostgreSQL in a fresh
// database on the test cluster (support/pg_test_database.h) — with helpers
// that build, claim and finish. A backend joins by adding a factory to
// backends().
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "core/ids.h"
#include "store/postgres/postgres_store.h"
#include "store/sqlite/sqlite_store.h"
#include "support/fake_probe.h"
#include "support/pg_test_database.h"
#include "support/temp_dir.h"

namespace orrery::conformance {

using testing::FakeProbe;
using testing::TempDir;

inline constexpr TimeMs kNow = 1'780'000'000'000;  // 2026-05-28T20:26:40Z
inline constexpr DurationMs kMinute = 60'000;

// Where a backend keeps its data for one test: a directory (SQLite) or a
// database on the test cluster (PostgreSQL), which lives as long as the test.
struct Place {
  const TempDir& dir;
  std::shared_ptr<testing::PgTestDatabase> database;  // made by the PostgreSQL backend
};

// Opens one more store on the place (another process's connection, say):
// the first call makes the place's database.
using Factory = std::function<std::unique_ptr<Store>(Place&, std::shared_ptr<FakeProbe>)>;

struct Backend {
  const char* name;
  Factory open;
};

inline std::unique_ptr<Store> open_sqlite(Place& place, std::shared_ptr<FakeProbe> probe) {
  auto store = SqliteStore::open(
      {place.dir.file("orrery.db"), sqlite::Synchronous::kNormal, 5000, std::move(probe), kNow});
  EXPECT_TRUE(store.ok()) << (store ? "" : store.error().message);
  return store ? std::move(*store) : nullptr;
}

// Trusting the caller's clock, so that tests drive time (the server's clock
// has its own tests: tests/store/postgres/).
inline std::unique_ptr<Store> open_postgres(Place& place, std::shared_ptr<FakeProbe> probe) {
  if (!place.database) place.database = std::make_shared<testing::PgTestDatabase>();
  if (!place.database->ok()) return nullptr;
  PostgresOptions options;
  options.url = options.shown_url = place.database->url();
  options.probe = std::move(probe);
  options.now = kNow;
  options.trust_caller_clock = true;
  auto store = PostgresStore::open(options);
  EXPECT_TRUE(store.ok()) << (store ? "" : store.error().message);
  return store ? std::move(*store) : nullptr;
}

inline LoopFilter loops(LoopFilter::Archived archived, std::optional<LoopStatus> status = {}) {
  LoopFilter filter;
  filter.archived = archived;
  filter.status = status;
  return filter;
}

inline RunFilter runs(std::optional<std::string> loop_id, std::optional<RunStatus> status = {},
                      int limit = 100) {
  RunFilter filter;
  filter.loop_id = std::move(loop_id);
  filter.status = status;
  filter.limit = limit;
  return filter;
}

inline PruneOptions prune(std::optional<DurationMs> older_than, std::optional<int> keep,
                          bool dry_run, TimeMs now) {
  PruneOptions options;
  options.older_than = older_than;
  options.keep = keep;
  options.dry_run = dry_run;
  options.now = now;
  return options;
}

inline RecoveryOptions recovery(int limit, DurationMs grace_ms = 60'000) {
  RecoveryOptions options;
  options.limit = limit;
  options.grace_ms = grace_ms;
  return options;
}

// A fenced write refused because the daemon lease is not live.
inline bool lost_lease(const Status& result) {
  return !result.ok() && result.error().code == ErrorCode::kConflict &&
         result.error().message == "daemon lease lost";
}
template <typename T>
bool lost_lease(const Result<T>& result) {
  return !result.ok() && result.error().code == ErrorCode::kConflict &&
         result.error().message == "daemon lease lost";
}

class StoreConformance : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    store_ = GetParam().open(place_, probe_);
    ASSERT_NE(store_, nullptr);
  }

  // A loop every minute from kNow, two attempts, one-minute leases.
  Loop make_loop(const std::string& name, TimeMs created = kNow) {
    Loop loop;
    std::array<std::uint8_t, 10> bytes{};
    bytes[0] = std::uint8_t(++ids_);
    bytes[1] = std::uint8_t(ids_ >> 8);
    loop.id = make_id(created, bytes);
    loop.name = name;
    loop.schedule.type = ScheduleType::kInterval;
    loop.schedule.every_ms = kMinute;
    loop.target.argv = {"/bin/true"};
    loop.next_run_at = created + kMinute;
    loop.max_attempts = 2;
    loop.lease_ms = kMinute;
    loop.created_at = loop.updated_at = created;
    return loop;
  }

  Loop add_loop(const std::string& name, TimeMs created = kNow) {
    Loop loop = make_loop(name, created);
    const Status created_ok = store_->create_loop(loop);
    EXPECT_TRUE(created_ok.ok()) << (created_ok ? "" : created_ok.error().message);
    return loop;
  }

  ClaimedRun claim(const Loop& loop, TimeMs slot, const std::string& who = "runner-a",
                   TimeMs now = kNow) {
    auto claimed = store_->claim_slot({loop.id, slot}, who, now, {});
    EXPECT_TRUE(claimed.ok()) << (claimed ? "" : claimed.error().message);
    EXPECT_TRUE(claimed.ok() && claimed->has_value()) << "slot was not claimed";
    return claimed.ok() && claimed->has_value() ? **claimed : ClaimedRun{};
  }

  bool claimable(const Loop& loop, TimeMs slot, TimeMs now, const std::string& who = "runner-b") {
    auto claimed = store_->claim_slot({loop.id, slot}, who, now, {});
    EXPECT_TRUE(claimed.ok()) << (claimed ? "" : claimed.error().message);
    return claimed.ok() && claimed->has_value();
  }

  orrery::Run run_at(const Loop& loop, TimeMs slot) {
    auto run = store_->get_run_by_slot(loop.id, slot);
    EXPECT_TRUE(run.ok() && run->has_value());
    return run.ok() && run->has_value() ? **run : orrery::Run{};
  }

  void finish(const Claim& claim, RunStatus status, TimeMs now = kNow + 1000) {
    RunOutcome outcome;
    outcome.status = status;
    const Status finished = store_->finish_claim(claim, outcome, now);
    EXPECT_TRUE(finished.ok()) << (finished ? "" : finished.error().message);
  }

  // The loop as stored is `expected`: name, schedule state, versions, updated_at.
  void expect_unchanged(const std::string& id, const Loop& expected) {
    auto read = store_->get_loop(id);
    ASSERT_TRUE(read.ok() && read->has_value());
    const Loop& got = **read;
    EXPECT_EQ(got.name, expected.name);
    EXPECT_EQ(schedule_state(got), schedule_state(expected));
    EXPECT_EQ(got.config_version, expected.config_version);
    EXPECT_EQ(got.state_version, expected.state_version);
    EXPECT_EQ(got.updated_at, expected.updated_at);
  }

  TempDir dir_;
  Place place_{dir_, nullptr};  // outlives every store of the test
  std::shared_ptr<FakeProbe> probe_ = std::make_shared<FakeProbe>();
  std::unique_ptr<Store> store_;
  int ids_ = 0;
};

inline auto backends() {
  return ::testing::Values(Backend{"sqlite", open_sqlite}, Backend{"postgres", open_postgres});
}

inline std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
  return info.param.name;
}

}  // namespace orrery::conformance
