// DatabaseFiles and the commit check built on it: each file the database
// lives in (the directory, the database, its -wal, its -shm), removed or
// replaced by another at its path while a connection has it open, fails the
// next commit with an error naming the file, and the transaction is rolled
// back; a file absent when remembered is not checked.
#include "store/sqlite/database_files.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "store/sqlite/database.h"
#include "support/temp_dir.h"

namespace orrery::sqlite {
namespace {

namespace fs = std::filesystem;
using orrery::testing::TempDir;

std::unique_ptr<Database> open_db(const std::string& path) {
  auto db = Database::open(path, OpenOptions{Synchronous::kNormal, 1000, ""});
  EXPECT_TRUE(db.ok()) << (db ? "" : db.error().message);
  if (!db) return nullptr;
  EXPECT_TRUE((*db)->ensure_wal().ok());
  EXPECT_TRUE((*db)->exec("CREATE TABLE IF NOT EXISTS t (x INTEGER)").ok());
  return std::move(*db);
}

Status insert_one(Database& db) {
  if (auto begun = db.begin_write(); !begun) return begun;
  if (auto inserted = db.exec("INSERT INTO t VALUES (1)"); !inserted) {
    db.rollback();
    return inserted;
  }
  return db.commit();
}

std::int64_t rows(Database& db) {
  auto statement = db.prepare("SELECT COUNT(*) FROM t");
  EXPECT_TRUE(statement.ok());
  auto row = (*statement)->step();
  EXPECT_TRUE(row.ok() && *row);
  return (*statement)->int64(0);
}

struct Case {
  std::string suffix;  // of the database path; "dir" for the directory
  std::string what;
};

const Case kFiles[] = {
    {"", "the database file"},
    {"-wal", "the database's write-ahead log"},
    {"-shm", "the database's shared-memory index"},
    {"dir", "the database's directory"},
};

TEST(DatabaseFiles, AFileRemovedOrReplacedFailsTheNextCommitNamingItAndNothingIsWritten) {
  for (const Case& file : kFiles) {
    for (const bool replace : {false, true}) {
      SCOPED_TRACE(file.what + (replace ? " replaced" : " removed"));
      TempDir dir;
      const std::string home = dir.file("home");
      fs::create_directory(home);
      const std::string database = home + "/orrery.db";
      auto db = open_db(database);
      ASSERT_TRUE(db);
      db->remember_files();
      ASSERT_TRUE(insert_one(*db).ok());
      const std::string path = file.suffix == "dir" ? home : database + file.suffix;
      ASSERT_TRUE(fs::exists(path)) << path;
      fs::rename(path, dir.file("moved"));
      if (replace) fs::copy(dir.file("moved"), path, fs::copy_options::recursive);

      auto failed = insert_one(*db);
      ASSERT_FALSE(failed.ok());
      EXPECT_EQ(failed.error().code, ErrorCode::kUnavailable);
      const std::string expected =
          file.what + " " + path + " was " + (replace ? "replaced" : "removed");
      EXPECT_NE(failed.error().message.find(expected), std::string::npos) << failed.error().message;
      EXPECT_FALSE(db->in_transaction());
      EXPECT_EQ(rows(*db), 1);  // the second row was rolled back
    }
  }
}

TEST(DatabaseFiles, NothingIsCheckedBeforeTheFilesAreRememberedOrWhileTheyStay) {
  TempDir dir;
  const std::string database = dir.file("orrery.db");
  auto db = open_db(database);
  ASSERT_TRUE(db);
  fs::remove(database + "-shm");
  EXPECT_TRUE(insert_one(*db).ok());  // not remembered yet
  db->remember_files();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(insert_one(*db).ok());
  EXPECT_EQ(rows(*db), 4);
}

TEST(DatabaseFiles, AFileAbsentWhenRememberedIsNotChecked) {
  TempDir dir;
  const std::string database = dir.file("plain.db");
  DatabaseFiles files(database);
  files.remember();  // nothing there yet
  {
    std::FILE* created = std::fopen(database.c_str(), "w");
    std::fclose(created);
  }
  EXPECT_TRUE(files.check().ok());
  files.remember();
  EXPECT_TRUE(files.check().ok());
  fs::remove(database);
  auto removed = files.check();
  ASSERT_FALSE(removed.ok());
  EXPECT_NE(removed.error().message.find("the database file " + database + " was removed"),
            std::string::npos)
      << removed.error().message;
}

}  // namespace
}  // namespace orrery::sqlite
