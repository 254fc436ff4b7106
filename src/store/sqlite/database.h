// Database: one SQLite connection with a cache of prepared statements, and
// Statement: a cached prepared statement bound, stepped and reset per use
// (the SQLite side of store/sql/connection.h).
//
// Invariants: a statement is reset and its bindings cleared before it is
// handed out again; the first failed bind fails the next step; every SQLite
// failure becomes an Error of one class (database busy, disk full, damaged
// database, I/O error, ...) that names the file and the operation in orrery's
// words, never the SQL text (database.cc maps the result codes in one
// place); a connection that found its file damaged starts no further write
// transaction; nothing here throws.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/result.h"
#include "store/sql/connection.h"
#include "store/sqlite/database_files.h"

struct sqlite3;
struct sqlite3_stmt;

namespace orrery::sqlite {

class Database;

class Statement final : public sql::Statement {
 public:
  Statement(Database& db, sqlite3_stmt* stmt) : db_(&db), stmt_(stmt) {}
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() override;

  using sql::Statement::bind;
  sql::Statement& bind(int index, std::int64_t value) override;
  sql::Statement& bind(int index, double value) override;
  sql::Statement& bind(int index, std::string_view value) override;
  sql::Statement& bind_null(int index) override;

  Result<bool> step() override;
  void reset() override;

  bool is_null(int column) const override;
  std::int64_t int64(int column) const override;
  double real(int column) const override;
  std::string text(int column) const override;

 private:
  void record_bind(int index, int code);

  Database* db_;
  sqlite3_stmt* stmt_;
  int bind_error_ = 0;  // SQLITE_OK, or the first failed bind's code
  int bind_error_index_ = 0;
};

enum class Synchronous { kNormal, kFull };

// How a file is opened for reading only (a read-only data directory, an
// inspected backup): kNone writes; kReadOnly reads a file others may still
// write; kImmutable reads a file nobody writes (needed when its -wal and
// -shm cannot be created beside it).
enum class ReadOnly { kNone, kReadOnly, kImmutable };

struct OpenOptions {
  Synchronous synchronous = Synchronous::kNormal;
  int busy_timeout_ms = 5000;
  std::string vfs = "";  // empty: SQLite's default; tests name the fault-injecting one
  ReadOnly read_only = ReadOnly::kNone;
};

class Database final : public sql::Connection {
 public:
  // Opens (creating) the file with busy_timeout and foreign keys on; nothing
  // is written to the file here (see ensure_wal).
  static Result<std::unique_ptr<Database>> open(const std::string& path,
                                                const OpenOptions& options);
  static Result<std::unique_ptr<Database>> open(const std::string& path, Synchronous synchronous,
                                                int busy_timeout_ms) {
    return open(path, OpenOptions{synchronous, busy_timeout_ms, "", ReadOnly::kNone});
  }
  ~Database() override;

  Status exec(std::string_view sql) override;
  Result<sql::StatementUse> prepare(std::string_view sql) override;
  std::int64_t changes() const override;
  bool in_transaction() const override;
  // BEGIN IMMEDIATE: the write lock on the whole file, so no row lock is needed.
  Status begin_write() override;
  // COMMIT, unless a file of the database was removed or replaced since
  // remember_files() (store/sqlite/database_files.h): then the transaction
  // is rolled back and the error names the file.
  Status commit() override;
  void rollback() override;
  std::string_view row_lock(sql::RowLock) const override { return ""; }
  std::string_view skip_locked() const override { return ""; }
  std::string json_text_elements(int parameter) const override {
    return std::string("SELECT value FROM json_each(?") + std::to_string(parameter) + ")";
  }
  std::string index_hint(std::string_view index) const override {
    return "INDEXED BY " + std::string(index) + " ";
  }
  // An embedded file has no clock of its own: the caller's is used.
  Result<std::optional<std::int64_t>> server_time_ms() override {
    return std::optional<std::int64_t>{};
  }
  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }
  size_t cached_statements() const { return statements_.size(); }
  int busy_timeout_ms() const { return busy_timeout_ms_; }

  // Records the database's files as they are now; every commit checks them.
  void remember_files() {
    files_.remember();
    files_remembered_ = true;
  }
  Status check_files() const { return files_remembered_ ? files_.check() : Status(Ok{}); }

  // Switches the journal to WAL, retrying while other connections hold the
  // file (up to the busy timeout).
  Status ensure_wal();
  // PRAGMA quick_check: Ok, or the damaged-database error.
  Status check_integrity() override;
  // The error of the connection's last failure (`code`) while running `sql`.
  Error error_for(int code, std::string_view sql);
  // Set once a failure showed the file damaged: no write transaction starts.
  bool damaged() const { return damaged_; }
  Error damaged_error(std::string_view operation) const;
  // <path>.damaged: written when damage is found, checked at every open.
  std::string damage_marker() const;

 private:
  Database(sqlite3* db, std::string path, int busy_timeout_ms)
      : db_(db), path_(path), busy_timeout_ms_(busy_timeout_ms), files_(path) {}

  void mark_damaged();

  sqlite3* db_;
  std::string path_;
  int busy_timeout_ms_;
  bool damaged_ = false;
  bool checking_ = false;  // inside check_integrity: no nested check
  DatabaseFiles files_;
  bool files_remembered_ = false;
  std::unordered_map<std::string, std::unique_ptr<Statement>> statements_;
};

// Kept for the code written against SQLite alone (migrations, tests).
using sql::describe_operation;
using sql::StatementUse;
using sql::Transaction;

}  // namespace orrery::sqlite
