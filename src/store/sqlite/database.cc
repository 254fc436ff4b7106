#include "store/sqlite/database.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace orrery::sqlite {
namespace {

using sql::describe_operation;
using sql::starts_with_keyword;

bool is_damage(int primary) { return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB; }

// A file: URI for a read-only open of `path` (its %, ? and # escaped).
std::string read_only_uri(const std::string& path, ReadOnly mode) {
  std::string uri = "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      static const char kHex[] = "0123456789ABCDEF";
      uri += '%';
      uri += kHex[(unsigned char)c >> 4];
      uri += kHex[(unsigned char)c & 15];
    } else {
      uri += c;
    }
  }
  return uri + (mode == ReadOnly::kImmutable ? "?mode=ro&immutable=1" : "?mode=ro");
}

}  // namespace

// The one place SQLite result codes become orrery's error classes
// (docs/storage.md, "Errors").
Error Database::error_for(int code, std::string_view sql) {
  const int primary = code & 0xff;
  const int system = db_ ? sqlite3_system_errno(db_) : 0;
  const std::string operation = describe_operation(sql);
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
    std::string waited = std::to_string(busy_timeout_ms_) + " ms";
    if (busy_timeout_ms_ % 1000 == 0) waited = std::to_string(busy_timeout_ms_ / 1000) + " s";
    return unavailable_error("database busy: another process holds the write lock on " + path_ +
                             " (gave up " + operation + " after " + waited + ")");
  }
  if (primary == SQLITE_FULL || (primary == SQLITE_IOERR && system == ENOSPC)) {
    return unavailable_error("disk full: cannot write " + path_ + " while " + operation +
                             "; free some space and try again");
  }
  if (primary == SQLITE_IOERR && !checking_) {
    // An I/O error can be a damaged (say truncated) file: look before naming it.
    if (auto intact = check_integrity(); !intact && damaged_) return intact.error();
  }
  if (is_damage(primary)) {
    mark_damaged();
    return damaged_error(operation);
  }
  if (primary == SQLITE_IOERR) {
    return internal_error("disk I/O error on " + path_ + " while " + operation +
                          (system != 0 ? std::string(": ") + std::strerror(system) : ""));
  }
  if (primary == SQLITE_CANTOPEN || primary == SQLITE_PERM || primary == SQLITE_AUTH) {
    return usage_error("cannot open " + path_ +
                       (system != 0 ? std::string(": ") + std::strerror(system) : ""));
  }
  if (primary == SQLITE_READONLY) {
    return usage_error("cannot write " + path_ + " while " + operation +
                       ": the database file or its directory is read-only");
  }
  if (primary == SQLITE_TOOBIG) {
    return usage_error("a value is too large to store in " + path_ + " while " + operation);
  }
  if (primary == SQLITE_NOMEM) return internal_error("out of memory while " + operation);
  return internal_error("database error on " + path_ + " while " + operation + ": " +
                        sqlite3_errstr(code));
}

std::string Database::damage_marker() const { return path_ + ".damaged"; }

// Damage found once is remembered next to the file, so that a later process
// whose statements happen to miss the damaged pages does not write to it
// either; the marker goes once the file passes quick_check again.
void Database::mark_damaged() {
  damaged_ = true;
  if (path_.empty()) return;
  const int fd = ::open(damage_marker().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return;  // best effort: this connection refuses writes regardless
  const std::string note =
      "orrery found " + path_ + " damaged; it will not write to it while this file exists\n";
  (void)!::write(fd, note.data(), note.size());
  ::close(fd);
}

Error Database::damaged_error(std::string_view operation) const {
  return usage_error(path_ + " is damaged or is not an SQLite database (found while " +
                     std::string(operation) +
                     "); orrery will not write to it: restore it from a backup or move it away");
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::record_bind(int index, int code) {
  if (code != SQLITE_OK && bind_error_ == SQLITE_OK) {
    bind_error_ = code;
    bind_error_index_ = index;
  }
}

sql::Statement& Statement::bind(int index, std::int64_t value) {
  record_bind(index, sqlite3_bind_int64(stmt_, index, value));
  return *this;
}

sql::Statement& Statement::bind(int index, double value) {
  record_bind(index, sqlite3_bind_double(stmt_, index, value));
  return *this;
}

sql::Statement& Statement::bind(int index, std::string_view value) {
  record_bind(index, sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT,
                                         SQLITE_UTF8));
  return *this;
}

sql::Statement& Statement::bind_null(int index) {
  record_bind(index, sqlite3_bind_null(stmt_, index));
  return *this;
}

Result<bool> Statement::step() {
  if (bind_error_ != SQLITE_OK) {
    const std::string operation = describe_operation(sqlite3_sql(stmt_));
    if (bind_error_ == SQLITE_TOOBIG) {
      return usage_error("a value is too large to store in " + db_->path() + " while " + operation);
    }
    return internal_error("cannot bind value " + std::to_string(bind_error_index_) + " while " +
                          operation + ": " + sqlite3_errstr(bind_error_));
  }
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->error_for(sqlite3_extended_errcode(sqlite3_db_handle(stmt_)), sqlite3_sql(stmt_));
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_error_ = SQLITE_OK;
  bind_error_index_ = 0;
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

namespace {

// Once per process, before SQLite initializes: no lookaside buffer and no
// bulk page-cache allocation per connection, each of which a new connection
// would write through whole (48 and 88 KiB) before it uses any. A forked
// supervisor opens one connection per run, and every page it touches is a
// fault (docs/benchmarks.md, "The cost of one run"). When SQLite was
// initialized already (a test's VFS), the calls are refused and change
// nothing.
void configure_sqlite_memory() {
  static const bool configured = [] {
    sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0);
    sqlite3_config(SQLITE_CONFIG_PAGECACHE, nullptr, 0, 0);
    return true;
  }();
  (void)configured;
}

}  // namespace

Result<std::unique_ptr<Database>> Database::open(const std::string& path,
                                                 const OpenOptions& options) {
  configure_sqlite_memory();
  sqlite3* handle = nullptr;
  const bool writes = options.read_only == ReadOnly::kNone;
  const int flags = (writes ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                            : SQLITE_OPEN_READONLY | SQLITE_OPEN_URI) |
                    SQLITE_OPEN_NOMUTEX;
  const char* vfs = options.vfs.empty() ? nullptr : options.vfs.c_str();
  const std::string name = writes ? path : read_only_uri(path, options.read_only);
  const int rc = sqlite3_open_v2(name.c_str(), &handle, flags, vfs);
  std::unique_ptr<Database> db(new Database(handle, path, options.busy_timeout_ms));
  if (rc != SQLITE_OK) {
    if (handle == nullptr) return internal_error("out of memory opening " + path);
    return db->error_for(sqlite3_extended_errcode(handle), "open");
  }
  sqlite3_busy_timeout(handle, options.busy_timeout_ms);
  sqlite3_extended_result_codes(handle, 1);
  // Nothing here writes the file: a file that is not ours must be refused
  // (by the schema check) before journal_mode=WAL rewrites its header.
  const std::string pragmas =
      std::string("PRAGMA foreign_keys=ON; PRAGMA cache_size=-16384; ") +
      (options.synchronous == Synchronous::kFull ? "PRAGMA synchronous=FULL;"
                                                 : "PRAGMA synchronous=NORMAL;");
  if (auto status = db->exec(pragmas); !status) return status.error();
  if (::access(db->damage_marker().c_str(), F_OK) == 0) {
    if (auto intact = db->check_integrity(); !intact) return intact.error();
    if (writes) ::unlink(db->damage_marker().c_str());  // repaired (or restored) since
  }
  return db;
}

Database::~Database() {
  statements_.clear();
  sqlite3_close(db_);
}

Status Database::exec(std::string_view sql) {
  const std::string text(sql);
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return error_for(sqlite3_extended_errcode(db_), text);
  return Ok{};
}

Result<sql::StatementUse> Database::prepare(std::string_view sql) {
  if (damaged_ && !starts_with_keyword(sql, "SELECT") && !starts_with_keyword(sql, "PRAGMA")) {
    return damaged_error(describe_operation(sql));
  }
  auto found = statements_.find(std::string(sql));
  if (found == statements_.end()) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v3(db_, sql.data(), int(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt,
                           nullptr) != SQLITE_OK) {
      return error_for(sqlite3_extended_errcode(db_), sql);
    }
    found = statements_.emplace(std::string(sql), std::make_unique<Statement>(*this, stmt)).first;
  }
  return sql::StatementUse(*found->second);
}

std::int64_t Database::changes() const { return sqlite3_changes(db_); }

bool Database::in_transaction() const { return sqlite3_get_autocommit(db_) == 0; }

Status Database::ensure_wal() {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms_);
  while (true) {
    // Switching needs every other connection out of the file; SQLite does not
    // always wait for that itself, so wait here, as the busy timeout would.
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v2(db_, "PRAGMA journal_mode=WAL", -1, &stmt, nullptr);
    std::string mode;
    if (rc == SQLITE_OK) {
      rc = sqlite3_step(stmt);
      if (rc == SQLITE_ROW) {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
        mode = text ? text : "";
        rc = SQLITE_OK;
      }
    }
    const int code = sqlite3_extended_errcode(db_);
    sqlite3_finalize(stmt);
    if (rc == SQLITE_OK && mode == "wal") return Ok{};
    // An in-memory database (the empty store of a read-only data directory)
    // has no file to journal.
    if (rc == SQLITE_OK && mode == "memory" && path_ == ":memory:") return Ok{};
    if (rc == SQLITE_OK) {
      return internal_error(path_ + " cannot use the WAL journal (its file system keeps it in " +
                            mode + " mode)");
    }
    const bool busy = (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
    if (!busy) return error_for(code, "PRAGMA journal_mode=WAL");
    if (std::chrono::steady_clock::now() >= deadline) {
      return error_for(SQLITE_BUSY, "PRAGMA journal_mode=WAL");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

Status Database::check_integrity() {
  checking_ = true;
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, "PRAGMA quick_check", -1, &stmt, nullptr);
  std::string verdict;
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
      verdict = text ? text : "";
      rc = SQLITE_OK;
    }
  }
  const int code = sqlite3_extended_errcode(db_);
  sqlite3_finalize(stmt);
  Status result = Ok{};
  if (rc != SQLITE_OK) {
    result = error_for(code, "PRAGMA quick_check");
  } else if (verdict != "ok") {
    mark_damaged();
    result = damaged_error("checking the database");
  }
  checking_ = false;
  return result;
}

Status Database::begin_write() {
  if (damaged_) return damaged_error("starting a write transaction");
  return exec("BEGIN IMMEDIATE");
}

Status Database::commit() {
  if (auto same = check_files(); !same) {
    rollback();
    return same;
  }
  return exec("COMMIT");
}

void Database::rollback() { (void)exec("ROLLBACK"); }

}  // namespace orrery::sqlite
