// Connection and Statement: what the store's one implementation (SqlStore)
// needs of a database, implemented over SQLite (store/sql/connection.h) and
// over PostgreSQL (store/postgres/pg_connection.h).
//
// Invariants every implementation keeps:
// - SQL text is written once for both, with `?N` parameters (1-based) and
//   the SQL both dialects accept (docs/storage.md, "One store, two
//   databases");
// - a statement handed out by prepare() is reset, its bindings cleared, when
//   its StatementUse goes out of scope; the first failed bind fails the next
//   step;
// - every failure becomes an Error in orrery's words naming the database and
//   the operation, never the SQL text; nothing here throws;
// - a write transaction holds what its writes need: SQLite's takes the
//   whole database (BEGIN IMMEDIATE); PostgreSQL's runs at READ COMMITTED,
//   so a read that a later write depends on takes a row lock (row_lock()).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace orrery::sql {

class Statement {
 public:
  virtual ~Statement() = default;

  // Binds by 1-based index; optional values bind NULL when empty.
  virtual Statement& bind(int index, std::int64_t value) = 0;
  virtual Statement& bind(int index, double value) = 0;
  virtual Statement& bind(int index, std::string_view value) = 0;
  virtual Statement& bind_null(int index) = 0;
  Statement& bind(int index, int value) { return bind(index, std::int64_t{value}); }
  Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  Statement& bind(int index, const std::string& value) {
    return bind(index, std::string_view(value));
  }
  template <typename T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind_null(index);
  }

  // One step: true when a row is ready, false when done.
  virtual Result<bool> step() = 0;
  // Runs to completion, ignoring rows.
  Status run();
  virtual void reset() = 0;

  virtual bool is_null(int column) const = 0;
  virtual std::int64_t int64(int column) const = 0;
  virtual double real(int column) const = 0;
  virtual std::string text(int column) const = 0;
  std::optional<std::int64_t> optional_int64(int column) const;
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

// The lock a read takes on the rows it returns, inside a write transaction.
enum class RowLock { kShare, kUpdate };

class Connection {
 public:
  virtual ~Connection() = default;

  virtual Status exec(std::string_view sql) = 0;
  // A cached statement for this SQL text.
  virtual Result<StatementUse> prepare(std::string_view sql) = 0;
  // Rows changed by the last INSERT, UPDATE or DELETE.
  virtual std::int64_t changes() const = 0;
  virtual bool in_transaction() const = 0;

  virtual Status begin_write() = 0;
  virtual Status commit() = 0;
  virtual void rollback() = 0;

  // " FOR SHARE" / " FOR UPDATE" where the database locks rows; "" where a
  // write transaction already holds the whole database.
  virtual std::string_view row_lock(RowLock lock) const = 0;
  // "INDEXED BY <index> " where the planner takes such a hint (SQLite, whose
  // planner can miss a partial index), "" where it picks the index itself.
  virtual std::string index_hint(std::string_view index) const = 0;
  // A subquery whose rows are the strings of the JSON array bound to the
  // parameter `?N`, as in "id IN (<it>)": json_each on SQLite,
  // jsonb_array_elements_text on PostgreSQL. One statement text whatever
  // the array's length.
  virtual std::string json_text_elements(int parameter) const = 0;
  // Checks the database before destructive work: a damaged one is refused.
  virtual Status check_integrity() = 0;
  // The database server's clock, or nothing when the database has no clock
  // of its own to trust over the caller's (an embedded file).
  virtual Result<std::optional<std::int64_t>> server_time_ms() = 0;
  // " FOR UPDATE SKIP LOCKED" where concurrent claimers skip the rows another
  // writer holds (a server); "" where writers take turns (an embedded file).
  virtual std::string_view skip_locked() const = 0;

  // Notices between processes sharing the database (a server's
  // LISTEN/NOTIFY): notify() signals `channel` when the open transaction
  // commits (at once outside one); listen() subscribes and gives the
  // descriptor that becomes readable when a notice arrives (-1: notices are
  // not supported); take_notifications() reads those that arrived (true:
  // some did). The descriptor may change when the connection is made again:
  // ask for it after each take_notifications().
  virtual Status notify(std::string_view) { return Ok{}; }
  virtual Result<int> listen(const std::vector<std::string>&) { return -1; }
  virtual Result<bool> take_notifications() { return false; }
  virtual int notice_descriptor() const { return -1; }
};

// A write transaction, rolled back unless committed. A COMMIT that fails
// rolls back, so the connection never stays inside the transaction.
class Transaction {
 public:
  static Result<std::unique_ptr<Transaction>> begin(Connection& db);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  Status commit();

 private:
  explicit Transaction(Connection& db) : db_(db) {}
  Connection& db_;
  bool done_ = false;
};

// The operation a statement performs, in orrery's words ("writing runs").
std::string describe_operation(std::string_view sql);
// Whether `sql` starts with the keyword `word` (upper case), in any case.
bool starts_with_keyword(std::string_view sql, std::string_view word);

}  // namespace orrery::sql
