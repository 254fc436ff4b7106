// PgConnection: one PostgreSQL connection (libpqxx) with a cache of
// prepared statements, and PgStatement: a cached statement bound, executed
// and read per use — the PostgreSQL side of store/sql/connection.h.
//
// Invariants: SQL is written with `?N` parameters and sent with `$N`; every
// parameter a use leaves unbound is NULL (as in SQLite); a statement's rows
// are fetched in one round trip when it is first stepped; every libpqxx or
// server failure becomes an Error of one class (server unreachable, login
// refused, server disk full, ...) naming the server by its redacted URL and
// the operation in orrery's words, never the SQL text (pg_connection.cc maps
// them in one place); a write transaction runs at READ COMMITTED; nothing here
// throws.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/sql/connection.h"

namespace pqxx {
class result;
}  // namespace pqxx

namespace orrery::postgres {

class PgConnection;

class PgStatement final : public sql::Statement {
 public:
  PgStatement(PgConnection& db, std::string name, std::string sql, std::vector<int> sent,
              int parameters);
  ~PgStatement() override;

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

  const std::string& sql() const { return sql_; }

 private:
  Status execute();
  void set(int index, std::optional<std::string> value);

  PgConnection* db_;
  std::string name_;
  std::string sql_;                                     // with $M parameters
  std::vector<int> sent_;                               // the ?N of each $M
  std::vector<std::optional<std::string>> parameters_;  // by N
  std::unique_ptr<pqxx::result> rows_;
  long row_ = -1;
  int bad_index_ = 0;  // a bind out of range, reported by the next step
};

class PgConnection final : public sql::Connection {
 public:
  // Connects to `url` (a postgres:// or postgresql:// URL, any libpq
  // parameters); `shown_url` is how messages name the server (the URL
  // without its password).
  // `busy_timeout_ms` bounds each wait for a lock (lock_timeout): past it
  // the operation fails as unavailable, as a busy SQLite file does.
  static Result<std::unique_ptr<PgConnection>> open(const std::string& url,
                                                    const std::string& shown_url,
                                                    int busy_timeout_ms);
  ~PgConnection() override;

  Status exec(std::string_view sql) override;
  Result<sql::StatementUse> prepare(std::string_view sql) override;
  std::int64_t changes() const override { return changes_; }
  bool in_transaction() const override;
  // BEGIN at READ COMMITTED: callers lock what their writes depend on.
  Status begin_write() override;
  Status commit() override;
  void rollback() override;
  std::string_view row_lock(sql::RowLock lock) const override;
  std::string index_hint(std::string_view) const override { return ""; }
  std::string json_text_elements(int parameter) const override {
    return std::string("SELECT jsonb_array_elements_text(CAST(?") + std::to_string(parameter) +
           " AS jsonb))";
  }
  // Nothing to check: the server keeps its own files intact.
  Status check_integrity() override { return Ok{}; }
  // clock_timestamp() on the server, in milliseconds since the epoch.
  Result<std::optional<std::int64_t>> server_time_ms() override;
  std::string_view skip_locked() const override { return " FOR UPDATE SKIP LOCKED"; }
  // pg_notify(); LISTEN on each channel (kept across libpqxx's reconnects).
  Status notify(std::string_view channel) override;
  Result<int> listen(const std::vector<std::string>& channels) override;
  Result<bool> take_notifications() override;
  int notice_descriptor() const override;

  // The server's version as libpq reports it (150018 for 15.18).
  int server_version() const;
  const std::string& shown_url() const { return shown_url_; }

  // The one place libpqxx exceptions become orrery's errors.
  Error error_for(const std::exception& failure, std::string_view sql) const;

  // For PgStatement: runs a prepared statement with these parameters.
  Result<pqxx::result> run_prepared(const std::string& name, const std::string& sql,
                                    const std::vector<std::optional<std::string>>& parameters);

 private:
  struct Link;  // the libpqxx connection and its open transaction, if any
  PgConnection(std::unique_ptr<Link> link, std::string shown_url);

  std::unique_ptr<Link> link_;
  std::string shown_url_;
  std::int64_t changes_ = 0;
  std::unordered_map<std::string, std::unique_ptr<PgStatement>> statements_;
};

// `sql` with its `?N` parameters outside quotes numbered `$1`, `$2`, ... in
// the order they first appear: PostgreSQL must infer the type of every
// parameter it is sent, so one the text never uses is not sent.
struct NumberedSql {
  std::string text;
  std::vector<int> sent;  // sent[M - 1] = N: `$M` is `?N`
  int parameters = 0;     // the largest N
};
NumberedSql dollar_parameters(std::string_view sql);

// `url` as a libpq keyword/value string with orrery's session settings
// added (pg_connection.cc); a usage error with libpq's reason when libpq
// cannot read the URL.
Result<std::string> with_session_settings(const std::string& url, int busy_timeout_ms);

}  // namespace orrery::postgres
