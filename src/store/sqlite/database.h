// Database: one SQLite connection with a cache of prepared statements, and
// Statement: a cached prepared statement bound, stepped and reset per use.
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

struct sqlite3;
struct sqlite3_stmt;

namespace orrery::sqlite {

class Database;

class Statement {
 public:
  Statement(Database& db, sqlite3_stmt* stmt) : db_(&db), stmt_(stmt) {}
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Binds by 1-based index; optional values bind NULL when empty.
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, int value) { return bind(index, std::int64_t{value}); }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);
  Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  Statement& bind(int index, const std::string& value) {
    return bind(index, std::string_view(value));
  }
  Statement& bind_null(int index);
  template <typename T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind_null(index);
  }

  // One step: true when a row is ready, false when done.
  Result<bool> step();
  // Runs to completion, ignoring rows.
  Status run();
  void reset();

  bool is_null(int column) const;
  std::int64_t int64(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  std::optional<std::int64_t> optional_int64(int column) const;

 private:
  void record_bind(int index, int code);

  Database* db_;
  sqlite3_stmt* stmt_;
  int bind_error_ = 0;  // SQLITE_OK, or the first failed bind's code
  int bind_error_index_ = 0;
};

// A statement in use: reset when it goes out of scope.
class StatementUse {
 public:
  explicit StatementUse(Statement& statement) : statement_(&statement) {}
  StatementUse(StatementUse&& other) noexcept : statement_(other.statement_) {
    other.statement_ = nullptr;
  }
  StatementUse(const StatementUse&) = delete;
  StatementUse& operator=(const StatementUse&) = delete;
  ~StatementUse() {
    if (statement_ != nullptr) statement_->reset();
  }
  Statement* operator->() { return statement_; }
  Statement& operator*() { return *statement_; }

 private:
  Statement* statement_;
};

enum class Synchronous { kNormal, kFull };

struct OpenOptions {
  Synchronous synchronous = Synchronous::kNormal;
  int busy_timeout_ms = 5000;
  std::string vfs = "";  // empty: SQLite's default; tests name the fault-injecting one
};

class Database {
 public:
  // Opens (creating) the file with busy_timeout and foreign keys on; nothing
  // is written to the file here (see ensure_wal).
  static Result<std::unique_ptr<Database>> open(const std::string& path,
                                                const OpenOptions& options);
  static Result<std::unique_ptr<Database>> open(const std::string& path, Synchronous synchronous,
                                                int busy_timeout_ms) {
    return open(path, OpenOptions{synchronous, busy_timeout_ms, ""});
  }
  ~Database();

  Status exec(std::string_view sql);
  // A cached statement for this SQL text.
  Result<StatementUse> prepare(std::string_view sql);
  int changes() const;
  bool in_transaction() const;
  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }
  size_t cached_statements() const { return statements_.size(); }
  int busy_timeout_ms() const { return busy_timeout_ms_; }

  // Switches the journal to WAL, retrying while other connections hold the
  // file (up to the busy timeout).
  Status ensure_wal();
  // PRAGMA quick_check: Ok, or the damaged-database error.
  Status check_integrity();
  // The error of the connection's last failure (`code`) while running `sql`.
  Error error_for(int code, std::string_view sql);
  // Set once a failure showed the file damaged: no write transaction starts.
  bool damaged() const { return damaged_; }
  Error damaged_error(std::string_view operation) const;
  // <path>.damaged: written when damage is found, checked at every open.
  std::string damage_marker() const;

 private:
  Database(sqlite3* db, std::string path, int busy_timeout_ms)
      : db_(db), path_(std::move(path)), busy_timeout_ms_(busy_timeout_ms) {}

  void mark_damaged();

  sqlite3* db_;
  std::string path_;
  int busy_timeout_ms_;
  bool damaged_ = false;
  bool checking_ = false;  // inside check_integrity: no nested check
  std::unordered_map<std::string, std::unique_ptr<Statement>> statements_;
};

// BEGIN IMMEDIATE ... COMMIT, rolled back unless committed. A COMMIT that
// fails rolls back, so the connection never stays inside the transaction.
class Transaction {
 public:
  static Result<std::unique_ptr<Transaction>> begin(Database& db);
  ~Transaction();
  Status commit();

 private:
  explicit Transaction(Database& db) : db_(db) {}
  Database& db_;
  bool done_ = false;
};

// The operation a statement performs, in orrery's words ("writing runs").
std::string describe_operation(std::string_view sql);

}  // namespace orrery::sqlite
