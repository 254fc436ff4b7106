#include "store/sqlite/migrations.h"

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace orrery::sqlite {
namespace {

using orrery::testing::TempDir;

std::unique_ptr<Database> open_db(const TempDir& dir) {
  auto db = Database::open(dir.file("test.db"), Synchronous::kNormal, 1000);
  EXPECT_TRUE(db.ok());
  return db ? std::move(*db) : nullptr;
}

std::int64_t single_int(Database& db, const std::string& sql) {
  auto statement = db.prepare(sql);
  EXPECT_TRUE(statement.ok());
  auto row = (*statement)->step();
  EXPECT_TRUE(row.ok() && *row) << sql;
  return (*statement)->int64(0);
}

TEST(Migrations, AFreshDatabaseReachesTheLatestVersionWithItsHistory) {
  TempDir dir;
  auto db = open_db(dir);
  ASSERT_TRUE(migrate(*db, 42).ok());
  EXPECT_EQ(single_int(*db, "PRAGMA user_version"), latest_schema_version());
  EXPECT_EQ(single_int(*db, "SELECT COUNT(*) FROM schema_migrations"),
            std::int64_t(migrations().size()));
  EXPECT_EQ(single_int(*db, "SELECT applied_at FROM schema_migrations WHERE version = 1"), 42);
  // Migrating again changes nothing.
  ASSERT_TRUE(migrate(*db, 43).ok());
  EXPECT_EQ(single_int(*db, "SELECT COUNT(*) FROM schema_migrations"),
            std::int64_t(migrations().size()));
}

// Migration 8 gives the pending rows of a database made before it their
// loops' claim terms (docs/storage.md, "Pending runs"); other rows keep the
// defaults.
TEST(Migrations, PendingRowsOfAnOlderDatabaseGetTheirLoopsClaimTerms) {
  TempDir dir;
  auto db = open_db(dir);
  const std::vector<Migration>& all = migrations();
  ASSERT_TRUE(migrate_with(*db, {all.begin(), all.begin() + 7}, 1).ok());
  ASSERT_EQ(single_int(*db, "PRAGMA user_version"), 7);
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
    auto statement = db->prepare(
        "SELECT claim_open || '|' || claim_selector || '|' || coalesce(claim_expires_at, 0) || '|' "
        "|| "
        "claim_lease_ms FROM runs WHERE id = '" +
        id + "'");
    EXPECT_TRUE(statement.ok());
    auto row = (*statement)->step();
    EXPECT_TRUE(row.ok() && *row) << id;
    return (*statement)->text(0);
  };
  EXPECT_EQ(terms("R1"), "1|[[\"gpu\",\"a100\"]]|1790000000000|120000");
  EXPECT_EQ(terms("R2"), "0|[]|0|60000") << "a paused loop's row waits";
  EXPECT_EQ(terms("R3"), "0|[]|0|0") << "a finished row is not pending";
}

TEST(Migrations, AFailingMigrationRollsBackAndLeavesTheOldSchema) {
  TempDir dir;
  auto db = open_db(dir);
  ASSERT_TRUE(migrate(*db, 1).ok());
  std::vector<Migration> list = migrations();
  const int next = latest_schema_version() + 1;
  list.push_back(
      {next, "half-done", "CREATE TABLE extra (x INTEGER); SELECT * FROM missing_table;"});
  auto failed = migrate_with(*db, list, 2);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message.find("schema migration " + std::to_string(next)),
            std::string::npos);
  EXPECT_NE(failed.error().message.find("rolled back"), std::string::npos);
  EXPECT_EQ(single_int(*db, "PRAGMA user_version"), latest_schema_version());
  EXPECT_EQ(single_int(*db, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'extra'"), 0);
  EXPECT_EQ(single_int(*db, "SELECT COUNT(*) FROM schema_migrations WHERE version = " +
                                std::to_string(next)),
            0);
}

TEST(Migrations, ANewerDatabaseIsRefusedNamingBothVersions) {
  TempDir dir;
  auto db = open_db(dir);
  const int newer = latest_schema_version() + 3;
  ASSERT_TRUE(db->exec("PRAGMA user_version = " + std::to_string(newer)).ok());
  auto refused = migrate(*db, 1);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  EXPECT_NE(refused.error().message.find("version " + std::to_string(newer)), std::string::npos);
  EXPECT_NE(refused.error().message.find("version " + std::to_string(latest_schema_version())),
            std::string::npos);
  EXPECT_EQ(single_int(*db, "SELECT COUNT(*) FROM sqlite_master"), 0);
}

}  // namespace
}  // namespace orrery::sqlite
