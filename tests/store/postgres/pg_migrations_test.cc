// PostgreSQL schema migrations (src/store/postgres/pg_migrations.h,
// docs/storage.md "Migrations"), on fresh databases of the test cluster: the
// version table, databases orrery must refuse untouched, a failing migration
// rolled back, processes migrating at once.
#include "store/postgres/pg_migrations.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "store/postgres/postgres_store.h"
#include "support/fake_probe.h"
#include "support/pg_test_database.h"

namespace orrery::postgres {
namespace {

using orrery::testing::pg_value;
using orrery::testing::PgTestDatabase;

constexpr std::int64_t kNow = 1'780'000'000'000;

std::unique_ptr<PgConnection> connect(const std::string& url) {
  auto db = PgConnection::open(url, url, 5000);
  EXPECT_TRUE(db.ok()) << (db ? "" : db.error().message);
  return db ? std::move(*db) : nullptr;
}

int latest_version() { return migrations().back().version; }

// The tables of the database, by schema and name, one per line in order.
std::string tables(const std::string& url) {
  return pg_value(url,
                  "SELECT coalesce(string_agg(schemaname || '.' || tablename, E'\\n' ORDER BY "
                  "schemaname, tablename), '') FROM pg_tables WHERE schemaname NOT IN "
                  "('pg_catalog', 'information_schema')");
}

// schema_migrations as "version name applied_at" lines, oldest first.
std::string history(const std::string& url) {
  return pg_value(url,
                  "SELECT coalesce(string_agg(version || ' ' || name || ' ' || applied_at, E'\\n' "
                  "ORDER BY version), '') FROM schema_migrations");
}

bool has_schema_migrations(const std::string& url) {
  return pg_value(url, "SELECT to_regclass('public.schema_migrations') IS NOT NULL") == "t";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(PgMigrations, AFreshDatabaseReachesTheLatestVersionWithOneRowPerMigration) {
  PgTestDatabase database;
  ASSERT_TRUE(database.ok());
  auto db = connect(database.url());
  ASSERT_NE(db, nullptr);
  const Status migrated = migrate(*db, 42);
  ASSERT_TRUE(migrated.ok()) << migrated.error().message;
  EXPECT_EQ(pg_value(database.url(), "SELECT count(*) FROM schema_migrations"),
            std::to_string(migrations().size()));
  EXPECT_EQ(pg_value(database.url(), "SELECT count(DISTINCT version) FROM schema_migrations"),
            std::to_string(migrations().size()));
  EXPECT_EQ(pg_value(database.url(), "SELECT max(version) FROM schema_migrations"),
            std::to_string(latest_version()));
  for (const Migration& migration : migrations()) {
    EXPECT_EQ(pg_value(database.url(),
                       "SELECT name || ' ' || applied_at FROM schema_migrations "
                       "WHERE version = " +
                           std::to_string(migration.version)),
              std::string(migration.name) + " 42");
  }
  EXPECT_EQ(
      tables(database.url()),
      "public.cooldowns\npublic.daemon_lease\npublic.events\npublic.goal_turns\npublic.goals\n"
      "public.invocations\npublic.loops\npublic.merge_entries\npublic.queue_configs\n"
      "public.queue_leases\n"
      "public.routes\npublic.run_feeds\npublic.runners\npublic.runs\npublic.schema_migrations\n"
      "public.work_items\npublic.worker_events\npublic.workers\n"
      "public.workflow_attempts\npublic.workflow_events\n"
      "public.workflow_runs\npublic.workflow_steps\npublic.workflows");
  // Migrating again changes nothing.
  const std::string before = history(database.url());
  ASSERT_TRUE(migrate(*db, 43).ok());
  EXPECT_EQ(history(database.url()), before);
}

TEST(PgMigrations, ANewerDatabaseIsRefusedNamingBothVersionsAndUnchanged) {
  for (const int newer : {latest_version() + 1, 99, 2'000'000}) {
    SCOPED_TRACE(newer);
    PgTestDatabase database;
    ASSERT_TRUE(database.ok());
    auto db = connect(database.url());
    ASSERT_NE(db, nullptr);
    ASSERT_TRUE(migrate(*db, 1).ok());
    pg_value(database.url(), "INSERT INTO schema_migrations VALUES (" + std::to_string(newer) +
                                 ", 'from a newer orrery', 2)");
    const std::string tables_before = tables(database.url());
    const std::string history_before = history(database.url());
    const Status refused = migrate(*db, 3);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
    EXPECT_TRUE(contains(refused.error().message, "version " + std::to_string(newer)))
        << refused.error().message;
    EXPECT_TRUE(contains(refused.error().message, "version " + std::to_string(latest_version())))
        << refused.error().message;
    EXPECT_TRUE(contains(refused.error().message, database.url())) << refused.error().message;
    EXPECT_EQ(tables(database.url()), tables_before);
    EXPECT_EQ(history(database.url()), history_before);
  }
}

TEST(PgMigrations, ADatabaseOfAnotherProgramIsRefusedAndGainsNothing) {
  // Its own tables, whatever their names: one of orrery's too.
  const std::vector<std::string> schemas = {
      "CREATE TABLE accounts (id BIGINT PRIMARY KEY, owner TEXT)",
      "CREATE TABLE loops (id SERIAL PRIMARY KEY, label TEXT)",
      "CREATE TABLE runs (id BIGINT); CREATE TABLE cooldowns (id BIGINT)",
  };
  for (const std::string& schema : schemas) {
    SCOPED_TRACE(schema);
    PgTestDatabase database;
    ASSERT_TRUE(database.ok());
    pg_value(database.url(), schema);
    const std::string before = tables(database.url());
    auto db = connect(database.url());
    ASSERT_NE(db, nullptr);
    const Status refused = migrate(*db, 1);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
    EXPECT_TRUE(contains(refused.error().message, "another program")) << refused.error().message;
    EXPECT_TRUE(contains(refused.error().message, "'public'")) << refused.error().message;
    EXPECT_FALSE(contains(refused.error().message, "CREATE")) << refused.error().message;
    EXPECT_FALSE(has_schema_migrations(database.url()));
    EXPECT_EQ(tables(database.url()), before);
  }
}

// Another program's schema_migrations table (Rails, golang-migrate, ...)
// names a database that is not orrery's as well.
// Only a table with orrery's columns (an integer version, name, applied_at)
// is orrery's history.
TEST(PgMigrations, AnotherProgramsSchemaMigrationsTableIsRefusedAndUnchanged) {
  const std::vector<std::string> schemas = {
      // Rails: text versions.
      "CREATE TABLE schema_migrations (version VARCHAR PRIMARY KEY); "
      "INSERT INTO schema_migrations VALUES ('20240101120000')",
      // golang-migrate: a timestamp version and a dirty flag.
      "CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, dirty BOOLEAN NOT NULL); "
      "INSERT INTO schema_migrations VALUES (20240101120000, false)",
      // golang-migrate with sequential versions below orrery's.
      "CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, dirty BOOLEAN NOT NULL); "
      "INSERT INTO schema_migrations VALUES (3, false)",
  };
  for (const std::string& schema : schemas) {
    SCOPED_TRACE(schema);
    PgTestDatabase database;
    ASSERT_TRUE(database.ok());
    pg_value(database.url(), schema);
    const std::string before = tables(database.url());
    auto db = connect(database.url());
    ASSERT_NE(db, nullptr);
    Status refused = Ok{};
    try {
      refused = migrate(*db, 1);
    } catch (const std::exception& thrown) {
      ADD_FAILURE() << "migrate() threw: " << thrown.what();
      continue;
    }
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage) << refused.error().message;
    EXPECT_TRUE(contains(refused.error().message, "another program")) << refused.error().message;
    EXPECT_EQ(tables(database.url()), before);
  }
}

// Migration 8 gives the pending rows of a database made before it their
// loops' claim terms (docs/storage.md, "Pending runs"); other rows keep the
// defaults.
TEST(PgMigrations, PendingRowsOfAnOlderDatabaseGetTheirLoopsClaimTerms) {
  PgTestDatabase database;
  ASSERT_TRUE(database.ok());
  auto db = connect(database.url());
  ASSERT_NE(db, nullptr);
  const std::vector<Migration>& all = migrations();
  std::vector<Migration> older;
  for (const Migration& migration : all) {
    if (migration.version < 8) older.push_back(migration);
  }
  ASSERT_TRUE(migrate_with(*db, older, 1).ok());
  ASSERT_EQ(pg_value(database.url(), "SELECT max(version) FROM schema_migrations"), "7");
  ASSERT_TRUE(
      db->exec(
            "INSERT INTO loops (id, name, status, archived, schedule_type, target_json, "
            "machine_json, "
            "catch_up, catch_up_limit, overlap, max_attempts, retry_delay_ms, retry_backoff, "
            "lease_ms, "
            "expires_at, created_at, updated_at) VALUES "
            "('L1', 'open', 'active', 0, 'interval', '{}', '[[\"gpu\",\"a100\"]]', 'latest', 1, "
            "'skip', "
            "1, 0, 'fixed', 120000, 1790000000000, 1, 1), "
            "('L2', 'held', 'paused', 0, 'interval', '{}', '[]', 'latest', 1, 'skip', 1, 0, "
            "'fixed', "
            "60000, NULL, 1, 1); "
            "INSERT INTO runs (id, loop_id, loop_name, scheduled_for, attempt, status, created_at, "
            "updated_at) VALUES ('R1', 'L1', 'open', 1, 1, 'pending', 1, 1), "
            "('R2', 'L2', 'held', 1, 1, 'pending', 1, 1), ('R3', 'L1', 'open', 2, 1, 'succeeded', "
            "1, 1)")
          .ok());
  ASSERT_TRUE(migrate(*db, 2).ok());
  const auto terms = [&](const std::string& id) {
    return pg_value(database.url(),
                    "SELECT claim_open || '|' || claim_selector || '|' || "
                    "coalesce(claim_expires_at, 0) || '|' || "
                    "claim_lease_ms FROM runs WHERE id = '" +
                        id + "'");
  };
  EXPECT_EQ(terms("R1"), "1|[[\"gpu\",\"a100\"]]|1790000000000|120000");
  EXPECT_EQ(terms("R2"), "0|[]|0|60000") << "a paused loop's row waits";
  EXPECT_EQ(terms("R3"), "0|[]|0|0") << "a finished row is not pending";
}

TEST(PgMigrations, AFailingMigrationRollsBackItsTablesAndVersion) {
  // Whether the failing statement comes first, last, or after a change to
  // an existing table.
  const std::vector<std::string> failing = {
      "SELECT * FROM missing_table",
      "CREATE TABLE extra (x BIGINT); SELECT * FROM missing_table",
      "ALTER TABLE loops ADD COLUMN extra BIGINT; CREATE TABLE extra (x BIGINT); "
      "INSERT INTO extra VALUES ('not a number')",
  };
  for (const std::string& sql : failing) {
    SCOPED_TRACE(sql);
    PgTestDatabase database;
    ASSERT_TRUE(database.ok());
    auto db = connect(database.url());
    ASSERT_NE(db, nullptr);
    ASSERT_TRUE(migrate(*db, 1).ok());
    const std::string tables_before = tables(database.url());
    const std::string history_before = history(database.url());
    std::vector<Migration> list = migrations();
    const int next = latest_version() + 1;
    list.push_back({next, "half-done", sql.c_str()});
    const Status failed = migrate_with(*db, list, 2);
    ASSERT_FALSE(failed.ok());
    EXPECT_TRUE(contains(failed.error().message, "schema migration " + std::to_string(next) +
                                                     " (half-done) failed and was rolled back"))
        << failed.error().message;
    EXPECT_FALSE(contains(failed.error().message, "SELECT")) << failed.error().message;
    EXPECT_EQ(tables(database.url()), tables_before);
    EXPECT_EQ(history(database.url()), history_before);
    EXPECT_EQ(pg_value(database.url(),
                       "SELECT count(*) FROM information_schema.columns WHERE "
                       "table_name = 'loops' AND column_name = 'extra'"),
              "0");
    // The connection is usable again: the migrations it has are applied.
    EXPECT_TRUE(migrate(*db, 3).ok());
  }
}

TEST(PgMigrations, AFailingMigrationOfAFreshDatabaseLeavesItEmpty) {
  PgTestDatabase database;
  ASSERT_TRUE(database.ok());
  auto db = connect(database.url());
  ASSERT_NE(db, nullptr);
  std::vector<Migration> list = migrations();
  list.push_back({latest_version() + 1, "broken", "CREATE TABLE extra (x BIGINT); SELEC 1"});
  const Status failed = migrate_with(*db, list, 2);
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(contains(failed.error().message, "rolled back")) << failed.error().message;
  EXPECT_EQ(tables(database.url()), "");
}

// Processes opening one fresh database at once all succeed, and each
// migration is applied once (docs/storage.md, "Migrations").
TEST(PgMigrations, ProcessesMigratingOneFreshDatabaseAtOnceAllSucceed) {
  PgTestDatabase database;
  ASSERT_TRUE(database.ok());
  constexpr int kProcesses = 6;
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  std::vector<pid_t> children;
  for (int i = 0; i < kProcesses; ++i) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      // Every child connects only after the fork, and starts when the pipe closes.
      ::close(go[1]);
      char byte;
      while (read(go[0], &byte, 1) > 0) {
      }
      PostgresOptions options;
      options.url = options.shown_url = database.url();
      options.probe = std::make_shared<orrery::testing::FakeProbe>();
      options.now = kNow + i;
      auto store = PostgresStore::open(options);
      if (!store) {
        fprintf(stderr, "child %d: %s\n", i, store.error().message.c_str());
        _exit(1);
      }
      store->reset();
      _exit(0);
    }
    children.push_back(child);
  }
  ::close(go[0]);
  ::close(go[1]);
  for (const pid_t child : children) {
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  }
  EXPECT_EQ(pg_value(database.url(), "SELECT count(*) FROM schema_migrations"),
            std::to_string(migrations().size()));
  EXPECT_EQ(pg_value(database.url(), "SELECT count(DISTINCT applied_at) FROM schema_migrations"),
            "1");
  EXPECT_EQ(
      tables(database.url()),
      "public.cooldowns\npublic.daemon_lease\npublic.events\npublic.goal_turns\npublic.goals\n"
      "public.invocations\npublic.loops\npublic.merge_entries\npublic.queue_configs\n"
      "public.queue_leases\n"
      "public.routes\npublic.run_feeds\npublic.runners\npublic.runs\npublic.schema_migrations\n"
      "public.work_items\npublic.worker_events\npublic.workers\n"
      "public.workflow_attempts\npublic.workflow_events\n"
      "public.workflow_runs\npublic.workflow_steps\npublic.workflows");
}

TEST(PgMigrations, ASearchPathNamingNoSchemaIsAUsageError) {
  for (const std::string path : {"nope", "nope%2Calso_nope", "%22%24user%22"}) {
    SCOPED_TRACE(path);
    PgTestDatabase database;
    ASSERT_TRUE(database.ok());
    auto db = connect(database.url() + "&options=-csearch_path%3D" + path);
    ASSERT_NE(db, nullptr);
    const Status refused = migrate(*db, 1);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
    EXPECT_TRUE(contains(refused.error().message, "search_path")) << refused.error().message;
    EXPECT_TRUE(contains(refused.error().message, "no schema")) << refused.error().message;
    EXPECT_EQ(tables(database.url()), "");
  }
}

TEST(PgMigrations, ASchemaNamedBySearchPathHoldsOrrerysTables) {
  PgTestDatabase database;
  ASSERT_TRUE(database.ok());
  pg_value(database.url(), "CREATE SCHEMA scheduler");
  pg_value(database.url(), "CREATE TABLE public.accounts (id BIGINT)");
  auto db = connect(database.url() + "&options=-csearch_path%3Dscheduler");
  ASSERT_NE(db, nullptr);
  const Status migrated = migrate(*db, 1);
  ASSERT_TRUE(migrated.ok()) << migrated.error().message;
  EXPECT_EQ(
      tables(database.url()),
      "public.accounts\nscheduler.cooldowns\nscheduler.daemon_lease\nscheduler.events\n"
      "scheduler.goal_turns\nscheduler.goals\n"
      "scheduler.invocations\nscheduler.loops\nscheduler.merge_entries\n"
      "scheduler.queue_configs\nscheduler.queue_leases\nscheduler.routes\nscheduler.run_feeds\n"
      "scheduler.runners\n"
      "scheduler.runs\nscheduler.schema_migrations\nscheduler.work_items\n"
      "scheduler.worker_events\nscheduler.workers\n"
      "scheduler.workflow_attempts\nscheduler.workflow_events\nscheduler.workflow_runs\n"
      "scheduler.workflow_steps\nscheduler.workflows");
}

TEST(PgMigrations, AServerOlderThanTwelveIsRefusedNamingItsVersion) {
  const std::string shown = "postgresql://u:****@old-server/db";
  const std::vector<std::pair<int, std::string>> too_old = {
      {110000, "11.0"}, {110022, "11.22"}, {100005, "10.5"}, {90624, "9.6.24"}};
  for (const auto& [version, text] : too_old) {
    SCOPED_TRACE(version);
    const Status refused = check_server_version(version, shown);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
    EXPECT_EQ(refused.error().message, "the PostgreSQL server " + shown + " is version " + text +
                                           "; orrery needs PostgreSQL 12 or newer");
  }
  for (const int version : {120000, 120022, 150018, 170002}) {
    SCOPED_TRACE(version);
    EXPECT_TRUE(check_server_version(version, shown).ok());
  }
}

}  // namespace
}  // namespace orrery::postgres
