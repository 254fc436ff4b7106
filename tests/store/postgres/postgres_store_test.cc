// PostgresStore (src/store/postgres/postgres_store.h): what only the
// PostgreSQL store has — leases and claims on the server's clock
// (docs/storage.md, "Whose clock") — and messages of a failed open that never
// hold the URL's password. The shared behaviour is the conformance suite's
// (tests/store/store_conformance_test.cc).
#include "store/postgres/postgres_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "core/ids.h"
#include "store/db_location.h"
#include "support/fake_probe.h"
#include "support/pg_test_database.h"
#include "support/refusing_port.h"

namespace orrery {
namespace {

using testing::FakeProbe;
using testing::pg_value;
using testing::PgTestDatabase;
using testing::RefusingPort;

constexpr DurationMs kHour = 3'600'000;
constexpr DurationMs kLeaseMs = 60'000;

TimeMs local_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class PostgresStoreClock : public ::testing::Test {
 protected:
  std::unique_ptr<PostgresStore> open(bool trust_caller_clock) {
    PostgresOptions options;
    options.url = options.shown_url = database_.url();
    options.probe = probe_;
    options.now = local_ms();
    options.trust_caller_clock = trust_caller_clock;
    auto store = PostgresStore::open(options);
    EXPECT_TRUE(store.ok()) << (store ? "" : store.error().message);
    return store ? std::move(*store) : nullptr;
  }

  // The server's clock now (the test cluster runs on this host).
  // The store carries a server reading forward by this host's clock for up
  // to a second (docs/storage.md, "Whose clock"): its times may differ from a
  // fresh reading by the rounding of two clocks to milliseconds and by the
  // round trip of the reading it carries (several ms under the sanitizers).
  static constexpr DurationMs kCarriedClockSlackMs = 25;

  TimeMs server_now(PostgresStore& store) {
    auto now = store.database().server_time_ms();
    EXPECT_TRUE(now.ok() && now->has_value());
    return now.ok() && now->has_value() ? **now : 0;
  }

  Loop add_loop(Store& store, const std::string& name) {
    Loop loop;
    std::array<std::uint8_t, 10> bytes{};
    bytes[0] = std::uint8_t(++ids_);
    const TimeMs now = local_ms();
    loop.id = make_id(now, bytes);
    loop.name = name;
    loop.schedule.type = ScheduleType::kInterval;
    loop.schedule.every_ms = 60'000;
    loop.target.argv = {"/bin/true"};
    loop.next_run_at = now + 60'000;
    loop.max_attempts = 2;
    loop.lease_ms = kLeaseMs;
    loop.created_at = loop.updated_at = now;
    const Status created = store.create_loop(loop);
    EXPECT_TRUE(created.ok()) << (created ? "" : created.error().message);
    return loop;
  }

  orrery::Run run_of(Store& store, const std::string& run_id) {
    auto run = store.get_run(run_id);
    EXPECT_TRUE(run.ok() && run->has_value());
    return run.ok() && run->has_value() ? **run : orrery::Run{};
  }

  PgTestDatabase database_;
  std::shared_ptr<FakeProbe> probe_ = std::make_shared<FakeProbe>();
  int ids_ = 0;
};

TEST_F(PostgresStoreClock, ALiveLeaseIsNotTakenByACallerWhoseClockIsAhead) {
  ASSERT_TRUE(database_.ok());
  auto store = open(/*trust_caller_clock=*/false);
  ASSERT_NE(store, nullptr);
  probe_->start({100, 1});
  auto first = store->acquire_daemon_lease({100, 1}, 30'000, local_ms());
  ASSERT_TRUE(first.ok() && first->has_value());
  for (const DurationMs ahead : {kHour, 24 * kHour, DurationMs{30'001}}) {
    SCOPED_TRACE(ahead);
    auto second = store->acquire_daemon_lease({200, 2}, 30'000, local_ms() + ahead);
    ASSERT_TRUE(second.ok()) << second.error().message;
    EXPECT_FALSE(second->has_value()) << "taken by generation " << (*second)->generation;
  }
  // The holder's fence holds whatever time its caller gives.
  EXPECT_TRUE(store->check_fence({(*first)->lease_id}, local_ms() + kHour).ok());
  EXPECT_EQ((*store->get_daemon_lease())->generation, 1);
}

TEST_F(PostgresStoreClock, ALeaseLastsItsTtlOnTheServersClockWhateverTheCallersClock) {
  ASSERT_TRUE(database_.ok());
  auto store = open(/*trust_caller_clock=*/false);
  ASSERT_NE(store, nullptr);
  for (const DurationMs skew : {-kHour, kHour, DurationMs{0}}) {
    SCOPED_TRACE(skew);
    const TimeMs before = server_now(*store) - kCarriedClockSlackMs;
    auto lease = store->acquire_daemon_lease({100, 1}, 30'000, local_ms() + skew);
    const TimeMs after = server_now(*store) + kCarriedClockSlackMs;
    ASSERT_TRUE(lease.ok() && lease->has_value());
    EXPECT_GE((*lease)->acquired_at, before);
    EXPECT_LE((*lease)->acquired_at, after);
    EXPECT_GE((*lease)->expires_at, before + 30'000);
    EXPECT_LE((*lease)->expires_at, after + 30'000);

    const TimeMs beat_before = server_now(*store) - kCarriedClockSlackMs;
    ASSERT_TRUE(store->heartbeat_daemon_lease((*lease)->lease_id, 45'000, local_ms() - skew).ok());
    const TimeMs beat_after = server_now(*store) + kCarriedClockSlackMs;
    const DaemonLease beaten = **store->get_daemon_lease();
    EXPECT_GE(beaten.heartbeat_at, beat_before);
    EXPECT_LE(beaten.heartbeat_at, beat_after);
    EXPECT_GE(beaten.expires_at, beat_before + 45'000);
    EXPECT_LE(beaten.expires_at, beat_after + 45'000);
  }
}

TEST_F(PostgresStoreClock, ClaimsAndHeartbeatsWriteTheServersTime) {
  ASSERT_TRUE(database_.ok());
  auto store = open(/*trust_caller_clock=*/false);
  ASSERT_NE(store, nullptr);
  const Loop loop = add_loop(*store, "clocked");
  for (const DurationMs skew : {-kHour, kHour, -24 * kHour, DurationMs{0}}) {
    SCOPED_TRACE(skew);
    const TimeMs slot = *loop.next_run_at + skew;
    const TimeMs before = server_now(*store) - kCarriedClockSlackMs;
    auto claimed = store->claim_slot({loop.id, slot}, "runner", local_ms() + skew, {});
    const TimeMs after = server_now(*store) + kCarriedClockSlackMs;
    ASSERT_TRUE(claimed.ok() && claimed->has_value())
        << (claimed ? "not claimed" : claimed.error().message);
    const orrery::Run started = run_of(*store, (*claimed)->run.id);
    ASSERT_TRUE(started.started_at && started.lease_expires_at);
    EXPECT_GE(*started.started_at, before);
    EXPECT_LE(*started.started_at, after);
    EXPECT_GE(*started.lease_expires_at, before + kLeaseMs);
    EXPECT_LE(*started.lease_expires_at, after + kLeaseMs);
    EXPECT_GE(started.updated_at, before);
    EXPECT_LE(started.updated_at, after);

    const Claim& claim = (*claimed)->claim;
    // A heartbeat far past the lease on the caller's clock still finds it live.
    const TimeMs beat_before = server_now(*store) - kCarriedClockSlackMs;
    const Status beat = store->heartbeat_claim(claim, kLeaseMs, local_ms() + skew + 2 * kLeaseMs);
    const TimeMs beat_after = server_now(*store) + kCarriedClockSlackMs;
    ASSERT_TRUE(beat.ok()) << beat.error().message;
    const orrery::Run beaten = run_of(*store, claim.id);
    EXPECT_GE(*beaten.lease_expires_at, beat_before + kLeaseMs);
    EXPECT_LE(*beaten.lease_expires_at, beat_after + kLeaseMs);
    EXPECT_GE(beaten.updated_at, beat_before);
    EXPECT_LE(beaten.updated_at, beat_after);

    ASSERT_TRUE(store->record_supervisor(claim, {4242, 7}, local_ms() + skew).ok());
    EXPECT_LE(run_of(*store, claim.id).updated_at, server_now(*store) + kCarriedClockSlackMs);
    EXPECT_GE(run_of(*store, claim.id).updated_at, beat_before);
  }
}

TEST_F(PostgresStoreClock, TrustingTheCallersClockUsesTheCallersTimes) {
  ASSERT_TRUE(database_.ok());
  auto store = open(/*trust_caller_clock=*/true);
  ASSERT_NE(store, nullptr);
  const TimeMs ahead = local_ms() + kHour;
  probe_->start({100, 1});
  auto first = store->acquire_daemon_lease({100, 1}, 30'000, ahead);
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ((*first)->acquired_at, ahead);
  EXPECT_EQ((*first)->expires_at, ahead + 30'000);
  // A caller past the lease's end on its own clock takes it.
  auto second = store->acquire_daemon_lease({200, 2}, 30'000, ahead + 30'000);
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_EQ((*second)->generation, 2);
  EXPECT_EQ((*second)->acquired_at, ahead + 30'000);

  const Loop loop = add_loop(*store, "trusted");
  auto claimed = store->claim_slot({loop.id, *loop.next_run_at}, "runner", ahead, {});
  ASSERT_TRUE(claimed.ok() && claimed->has_value());
  EXPECT_EQ(run_of(*store, (*claimed)->run.id).started_at, ahead);
  EXPECT_EQ(run_of(*store, (*claimed)->run.id).lease_expires_at, ahead + kLeaseMs);
  ASSERT_TRUE(store->heartbeat_claim((*claimed)->claim, kLeaseMs, ahead + 1000).ok());
  EXPECT_EQ(run_of(*store, (*claimed)->run.id).lease_expires_at, ahead + 1000 + kLeaseMs);
  // Past the lease on the caller's clock, the claim is lost.
  const Status late = store->heartbeat_claim((*claimed)->claim, kLeaseMs, ahead + 2 * kLeaseMs);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.error().code, ErrorCode::kConflict);
}

// ---------------------------------------------------------------- passwords

// The socket directory of the test cluster, from its URL's host parameter.
std::string socket_directory(const std::string& url) {
  const size_t host = url.find("host=");
  const size_t end = url.find('&', host);
  return url.substr(host + 5, end == std::string::npos ? std::string::npos : end - host - 5);
}

TEST(PostgresStorePasswords, NoMessageOfAFailedOpenHoldsThePassword) {
  PgTestDatabase database;
  ASSERT_TRUE(database.ok());
  PgTestDatabase other_program;
  ASSERT_TRUE(other_program.ok());
  pg_value(other_program.url(), "CREATE TABLE accounts (id BIGINT)");
  PgTestDatabase newer;
  ASSERT_TRUE(newer.ok());
  pg_value(newer.url(),
           "CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, "
           "applied_at BIGINT NOT NULL); INSERT INTO schema_migrations VALUES (99, 'newer', 1)");
  RefusingPort refusing;
  const std::string socket = socket_directory(database.url());
  const std::string secret = "S3cret-Pa55word";

  struct Case {
    std::string what;
    std::string url;
  };
  const std::vector<Case> cases = {
      {"wrong password",
       "postgresql://orrery_password:" + secret + "@/" + database.name() + "?host=" + socket},
      {"wrong password as a parameter", "postgresql:///" + database.name() + "?host=" + socket +
                                            "&user=orrery_password&password=" + secret},
      {"no such database", "postgresql://orrery:" + secret + "@/no_such_database?host=" + socket},
      {"no such role",
       "postgresql://nobody:" + secret + "@/" + database.name() + "?host=" + socket},
      {"no such socket directory",
       "postgresql://orrery:" + secret + "@/postgres?host=" + socket + "/missing"},
      {"a port nothing listens on", "postgresql://orrery:" + secret +
                                        "@127.0.0.1:" + std::to_string(refusing.port()) +
                                        "/postgres?connect_timeout=5"},
      {"a database of another program",
       "postgresql://orrery:" + secret + "@/" + other_program.name() + "?host=" + socket},
      {"a newer schema", "postgresql://orrery:" + secret + "@/" + newer.name() + "?host=" + socket},
      {"a search_path naming no schema", "postgresql://orrery:" + secret + "@/" + database.name() +
                                             "?host=" + socket + "&options=-csearch_path%3Dnope"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    PostgresOptions options;
    options.url = c.url;
    options.shown_url = redacted_db_url(c.url);
    ASSERT_FALSE(contains(options.shown_url, secret)) << options.shown_url;
    options.probe = std::make_shared<FakeProbe>();
    options.now = local_ms();
    auto store = PostgresStore::open(options);
    ASSERT_FALSE(store.ok());
    EXPECT_FALSE(contains(store.error().message, secret)) << store.error().message;
    EXPECT_FALSE(contains(store.error().message, "S3cret")) << store.error().message;
    EXPECT_TRUE(contains(store.error().message, options.shown_url)) << store.error().message;
  }
  // Nothing was written to the databases the opens reached.
  EXPECT_EQ(pg_value(database.url(), "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"),
            "0");
  EXPECT_EQ(
      pg_value(other_program.url(), "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"),
      "1");
  EXPECT_EQ(pg_value(newer.url(), "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"),
            "1");
}

}  // namespace
}  // namespace orrery
