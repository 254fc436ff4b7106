// Database: one SQLite connection with a cache of prepared statements, and
// Statement: a cached prepared statement bound, stepped and reset per use.
//
// Invariants: a statement is reset and its bindings cleared before it is
// handed out again; every SQLite failure becomes an Error naming the
// statement's purpose and SQLite's message; nothing here throws.
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

class Statement {
 public:
  explicit Statement(sqlite3_stmt* stmt) : stmt_(stmt) {}
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

  sqlite3* database() const;

 private:
  sqlite3_stmt* stmt_;
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

class Database {
 public:
  // Opens (creating) the file with WAL, busy_timeout and foreign keys on.
  static Result<std::unique_ptr<Database>> open(const std::string& path, Synchronous synchronous,
                                                int busy_timeout_ms);
  ~Database();

  Status exec(std::string_view sql);
  // A cached statement for this SQL text.
  Result<StatementUse> prepare(std::string_view sql);
  int changes() const;
  bool in_transaction() const;
  sqlite3* handle() const { return db_; }
  std::string last_error() const;

 private:
  explicit Database(sqlite3* db) : db_(db) {}

  sqlite3* db_;
  std::unordered_map<std::string, std::unique_ptr<Statement>> statements_;
};

// BEGIN IMMEDIATE ... COMMIT, rolled back unless committed.
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

}  // namespace orrery::sqlite
