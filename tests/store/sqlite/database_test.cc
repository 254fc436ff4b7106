// Database and Statement: bind errors, the classes SQLite failures map to
// (never SQL in a message), the busy timeout, and a failed COMMIT that
// leaves no transaction behind (the fault VFS fails it on purpose).
#include "store/sqlite/database.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <thread>
#include <vector>

#include "store/sqlite/fault_vfs.h"
#include "store/sqlite/migrations.h"
#include "support/temp_dir.h"

namespace orrery::sqlite {
namespace {

using orrery::testing::TempDir;

bool mentions_sql(const std::string& message) {
  for (const char* word : {"SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "PRAGMA", "BEGIN",
                           "COMMIT", " FROM ", "VALUES", "?1"}) {
    if (message.find(word) != std::string::npos) return true;
  }
  return false;
}

std::unique_ptr<Database> open_db(const std::string& path, int busy_ms = 1000,
                                  const std::string& vfs = "") {
  auto db = Database::open(path, OpenOptions{Synchronous::kNormal, busy_ms, vfs});
  EXPECT_TRUE(db.ok()) << (db ? "" : db.error().message);
  if (!db) return nullptr;
  EXPECT_TRUE((*db)->ensure_wal().ok());
  return std::move(*db);
}

std::int64_t count_rows(Database& db, const std::string& table) {
  auto statement = db.prepare("SELECT COUNT(*) FROM " + table);
  EXPECT_TRUE(statement.ok());
  auto row = (*statement)->step();
  EXPECT_TRUE(row.ok() && *row);
  return (*statement)->int64(0);
}

TEST(Database, TheFirstFailedBindFailsTheStepAndAResetClearsIt) {
  TempDir dir;
  auto db = open_db(dir.file("t.db"));
  {
    auto statement = db->prepare("SELECT ?1");
    ASSERT_TRUE(statement.ok());
    (*statement)->bind(1, std::int64_t{7}).bind(3, "out of range").bind(1, std::int64_t{8});
    auto row = (*statement)->step();
    ASSERT_FALSE(row.ok());
    EXPECT_EQ(row.error().code, ErrorCode::kInternal);
    EXPECT_NE(row.error().message.find("cannot bind value 3"), std::string::npos)
        << row.error().message;
    EXPECT_FALSE(mentions_sql(row.error().message)) << row.error().message;
  }
  // The cached statement, handed out again, is clean.
  auto statement = db->prepare("SELECT ?1");
  (*statement)->bind(1, std::int64_t{9});
  auto row = (*statement)->step();
  ASSERT_TRUE(row.ok() && *row);
  EXPECT_EQ((*statement)->int64(0), 9);
}

TEST(Database, AValueTooLargeIsAUsageErrorWithoutSql) {
  TempDir dir;
  auto db = open_db(dir.file("t.db"));
  ASSERT_TRUE(db->exec("CREATE TABLE t (x TEXT)").ok());
  sqlite3_limit(db->handle(), SQLITE_LIMIT_LENGTH, 100);
  for (size_t size : {101u, 1000u, 100'000u}) {
    auto insert = db->prepare("INSERT INTO t (x) VALUES (?1)");
    (*insert)->bind(1, std::string(size, 'x'));
    auto status = (*insert)->run();
    ASSERT_FALSE(status.ok()) << size;
    EXPECT_EQ(status.error().code, ErrorCode::kUsage);
    EXPECT_NE(status.error().message.find("too large"), std::string::npos);
    EXPECT_FALSE(mentions_sql(status.error().message)) << status.error().message;
  }
  EXPECT_EQ(count_rows(*db, "t"), 0);
}

TEST(Database, ErrorsNameTheFileAndTheOperationButNoSql) {
  TempDir dir;
  const std::string path = dir.file("t.db");
  auto db = open_db(path);
  ASSERT_TRUE(migrate(*db, 1).ok());
  ASSERT_TRUE(db->exec("INSERT INTO cooldowns VALUES ('a', 1, 1, 'r', 1)").ok());
  auto duplicate = db->exec("INSERT INTO cooldowns VALUES ('a', 1, 1, 'r', 1)");
  ASSERT_FALSE(duplicate.ok());
  EXPECT_NE(duplicate.error().message.find(path), std::string::npos);
  EXPECT_NE(duplicate.error().message.find("writing cooldowns"), std::string::npos)
      << duplicate.error().message;
  EXPECT_FALSE(mentions_sql(duplicate.error().message)) << duplicate.error().message;
  auto missing = db->prepare("SELECT nothing FROM runs");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("reading runs"), std::string::npos);
  EXPECT_FALSE(mentions_sql(missing.error().message)) << missing.error().message;
}

TEST(Database, OperationsAreDescribedInOrrerysWords) {
  EXPECT_EQ(describe_operation("SELECT id FROM loops WHERE x"), "reading loops");
  EXPECT_EQ(describe_operation("  insert into runs (id) VALUES (?1)"), "writing runs");
  EXPECT_EQ(describe_operation("UPDATE daemon_lease SET x = 1"), "updating the daemon lease");
  EXPECT_EQ(describe_operation("DELETE FROM runs WHERE id IN (SELECT id FROM runs)"),
            "deleting runs");
  EXPECT_EQ(describe_operation("SELECT 1 FROM loops_due"), "reading the database");
  EXPECT_EQ(describe_operation("BEGIN IMMEDIATE"), "starting a write transaction");
  EXPECT_EQ(describe_operation("COMMIT"), "committing a write transaction");
  EXPECT_EQ(describe_operation("PRAGMA journal_mode=WAL"), "switching to the WAL journal");
  EXPECT_EQ(describe_operation("ALTER TABLE runs ADD x"), "changing the schema");
}

TEST(Database, ABusyDatabaseIsUnavailableAfterTheBusyTimeout) {
  TempDir dir;
  const std::string path = dir.file("t.db");
  auto holder = open_db(path);
  ASSERT_TRUE(holder->exec("CREATE TABLE t (x)").ok());
  ASSERT_TRUE(holder->exec("BEGIN IMMEDIATE").ok());
  ASSERT_TRUE(holder->exec("INSERT INTO t VALUES (1)").ok());
  for (const int busy_ms : {0, 50, 200}) {
    SCOPED_TRACE(busy_ms);
    auto waiter = open_db(path, busy_ms);
    const auto start = std::chrono::steady_clock::now();
    auto begun = Transaction::begin(*waiter);
    const auto waited = std::chrono::steady_clock::now() - start;
    ASSERT_FALSE(begun.ok());
    EXPECT_EQ(begun.error().code, ErrorCode::kUnavailable);
    EXPECT_EQ(begun.error().message.rfind(
                  "database busy: another process holds the write lock on " + path, 0),
              0u)
        << begun.error().message;
    EXPECT_FALSE(mentions_sql(begun.error().message)) << begun.error().message;
    EXPECT_GE(waited, std::chrono::milliseconds(busy_ms));
    // Readers are not blocked by a writer (WAL).
    EXPECT_EQ(count_rows(*waiter, "t"), 0);
    auto single = waiter->exec("INSERT INTO t VALUES (2)");
    EXPECT_EQ(single.error().code, ErrorCode::kUnavailable);
  }
  ASSERT_TRUE(holder->exec("COMMIT").ok());
  auto waiter = open_db(path, 50);
  EXPECT_TRUE(Transaction::begin(*waiter).ok());
}

TEST(Database, AFailedCommitLeavesNoTransactionOpen) {
  register_fault_vfs();
  TempDir dir;
  auto db = open_db(dir.file("t.db"), 1000, kFaultVfsName);
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->exec("CREATE TABLE t (x)").ok());
  struct Case {
    const char* label;
    Fault fault;
    ErrorCode code;
    const char* words;
  };
  const Case cases[] = {
      {"full disk on the WAL",
       {FaultOp::kWrite, SQLITE_FULL, 0, 1, "-wal"},
       ErrorCode::kUnavailable,
       "disk full"},
      {"failed write",
       {FaultOp::kWrite, SQLITE_IOERR_WRITE, 0, 1, "-wal"},
       ErrorCode::kInternal,
       "disk I/O error"},
      {"failed write after the first frame",
       {FaultOp::kWrite, SQLITE_IOERR_WRITE, 1, 1, "-wal"},
       ErrorCode::kInternal,
       "disk I/O error"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    {
      auto transaction = Transaction::begin(*db);
      ASSERT_TRUE(transaction.ok());
      // Enough rows to take more than one WAL frame.
      for (int i = 0; i < 50; ++i) {
        ASSERT_TRUE(db->exec("INSERT INTO t VALUES (randomblob(200))").ok());
      }
      arm_fault(c.fault);
      auto committed = (*transaction)->commit();
      disarm_fault();
      EXPECT_EQ(fault_hits(), 1);
      ASSERT_FALSE(committed.ok());
      EXPECT_EQ(committed.error().code, c.code) << committed.error().message;
      EXPECT_NE(committed.error().message.find(c.words), std::string::npos)
          << committed.error().message;
      EXPECT_FALSE(mentions_sql(committed.error().message)) << committed.error().message;
      EXPECT_FALSE(db->in_transaction());
    }  // the destructor does not roll back a second time
    EXPECT_FALSE(db->in_transaction());
    EXPECT_EQ(count_rows(*db, "t"), 0);
    // The connection goes on working.
    auto next = Transaction::begin(*db);
    ASSERT_TRUE(next.ok());
    ASSERT_TRUE(db->exec("INSERT INTO t VALUES (1)").ok());
    ASSERT_TRUE((*next)->commit().ok());
    EXPECT_EQ(count_rows(*db, "t"), 1);
    ASSERT_TRUE(db->exec("DELETE FROM t").ok());
  }
}

TEST(Database, ManyConnectionsMigratingANewFileAtOnceAllSucceed) {
  TempDir dir;
  const std::string path = dir.file("new.db");
  constexpr int kThreads = 8;
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      auto db = Database::open(path, OpenOptions{Synchronous::kNormal, 5000, ""});
      if (!db) {
        failures[i] = db.error().message;
        return;
      }
      if (auto migrated = migrate(**db, i); !migrated) failures[i] = migrated.error().message;
    });
  }
  for (auto& thread : threads) thread.join();
  for (int i = 0; i < kThreads; ++i) EXPECT_EQ(failures[i], "") << "connection " << i;
  auto db = open_db(path);
  EXPECT_EQ(count_rows(*db, "schema_migrations"), latest_schema_version());
}

}  // namespace
}  // namespace orrery::sqlite
