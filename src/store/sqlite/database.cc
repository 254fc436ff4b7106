#include "store/sqlite/database.h"

#include <sqlite3.h>

namespace orrery::sqlite {
namespace {

Error sqlite_error(sqlite3* db, std::string_view what) {
  const int code = db ? sqlite3_extended_errcode(db) : SQLITE_ERROR;
  const std::string message = db ? sqlite3_errmsg(db) : "no connection";
  // A busy or full database is a condition of the machine, not of the input.
  return internal_error(std::string(what) + ": " + message + " (sqlite " + std::to_string(code) +
                        ")");
}

}  // namespace

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int index, std::int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
  return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), int(value.size()), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::bind_null(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

Result<bool> Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return sqlite_error(database(), sqlite3_sql(stmt_));
}

Status Statement::run() {
  while (true) {
    auto row = step();
    if (!row) return row.error();
    if (!*row) return Ok{};
  }
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::int64_t Statement::int64(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::text(int column) const {
  const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  return data ? std::string(data, size_t(sqlite3_column_bytes(stmt_, column))) : std::string();
}

std::optional<std::int64_t> Statement::optional_int64(int column) const {
  if (is_null(column)) return std::nullopt;
  return int64(column);
}

sqlite3* Statement::database() const { return sqlite3_db_handle(stmt_); }

Result<std::unique_ptr<Database>> Database::open(const std::string& path, Synchronous synchronous,
                                                 int busy_timeout_ms) {
  sqlite3* handle = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &handle, flags, nullptr) != SQLITE_OK) {
    Error error = sqlite_error(handle, "cannot open database " + path);
    sqlite3_close(handle);
    return error;
  }
  std::unique_ptr<Database> db(new Database(handle));
  sqlite3_busy_timeout(handle, busy_timeout_ms);
  sqlite3_extended_result_codes(handle, 1);
  // Nothing here writes the file: a file that is not ours must be refused
  // (here or by the schema check) before journal_mode=WAL rewrites its header.
  const std::string pragmas = std::string("PRAGMA foreign_keys=ON; PRAGMA cache_size=-16384; ") +
                              (synchronous == Synchronous::kFull ? "PRAGMA synchronous=FULL;"
                                                                 : "PRAGMA synchronous=NORMAL;");
  if (auto status = db->exec(pragmas); !status) {
    return usage_error(path + " is not an SQLite database, or a damaged one (" +
                       status.error().message + "); refusing to change it");
  }
  return db;
}

Database::~Database() {
  statements_.clear();
  sqlite3_close(db_);
}

Status Database::exec(std::string_view sql) {
  char* message = nullptr;
  const std::string text(sql);
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string detail = message ? message : "unknown error";
    sqlite3_free(message);
    return internal_error(detail);
  }
  return Ok{};
}

Result<StatementUse> Database::prepare(std::string_view sql) {
  auto found = statements_.find(std::string(sql));
  if (found == statements_.end()) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v3(db_, sql.data(), int(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt,
                           nullptr) != SQLITE_OK) {
      return sqlite_error(db_, "cannot prepare statement");
    }
    found = statements_.emplace(std::string(sql), std::make_unique<Statement>(stmt)).first;
  }
  return StatementUse(*found->second);
}

int Database::changes() const { return sqlite3_changes(db_); }

bool Database::in_transaction() const { return sqlite3_get_autocommit(db_) == 0; }

std::string Database::last_error() const { return sqlite3_errmsg(db_); }

Result<std::unique_ptr<Transaction>> Transaction::begin(Database& db) {
  if (auto status = db.exec("BEGIN IMMEDIATE"); !status) return status.error();
  return std::unique_ptr<Transaction>(new Transaction(db));
}

Transaction::~Transaction() {
  if (!done_) (void)db_.exec("ROLLBACK");
}

Status Transaction::commit() {
  done_ = true;
  return db_.exec("COMMIT");
}

}  // namespace orrery::sqlite
