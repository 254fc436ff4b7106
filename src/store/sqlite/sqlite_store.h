// SqliteStore: the Store on one SQLite database file (the embedded default):
// SqlStore over an SQLite connection, opened, created and migrated here.
//
// The file is created 0600 in a 0700 directory, in WAL mode; a database
// busy past the busy timeout is an unavailable error (exit 75).
#pragma once

#include <memory>
#include <string>

#include "store/sql/sql_store.h"
#include "store/sqlite/database.h"

namespace orrery {

// A database another process holds is retried this long, then the operation
// fails as unavailable (exit 75; docs/storage.md).
inline constexpr int kDefaultBusyTimeoutMs = 5000;

struct SqliteOptions {
  std::string path;  // the database file
  sqlite::Synchronous synchronous = sqlite::Synchronous::kNormal;
  int busy_timeout_ms = kDefaultBusyTimeoutMs;  // how long a busy database is retried
  std::shared_ptr<const ProcessProbe> probe;    // required
  TimeMs now = 0;                               // for schema_migrations.applied_at
  std::string vfs = "";  // empty: SQLite's default; tests name sqlite::kFaultVfsName
  // Reads only (a read-only data directory): nothing is created, migrated or
  // expired; the file must be at the latest schema. No file: an empty store
  // in memory.
  bool read_only = false;
};

class SqliteStore final : public SqlStore {
 public:
  // Opens the database, creating it 0600 (and its directory 0700), migrating
  // it to the latest schema; then active loops past their expiry at
  // options.now become expired (docs/storage.md, "Expiry").
  static Result<std::unique_ptr<SqliteStore>> open(const SqliteOptions& options);

  sqlite::Database& database() { return static_cast<sqlite::Database&>(connection()); }

 private:
  SqliteStore(std::unique_ptr<sqlite::Database> db, std::shared_ptr<const ProcessProbe> probe)
      : SqlStore(std::move(db), std::move(probe), /*trust_caller_clock=*/true) {}
};

}  // namespace orrery
