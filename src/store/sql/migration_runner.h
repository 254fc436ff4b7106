// Running schema migrations (docs/storage.md, "Migrations"), written once for
// both databases: numbered migrations applied in order, each recorded in
// schema_migrations, whose largest version is the database's. A backend
// supplies its list and what differs (MigrationBackend): how it reads and
// judges the schema it finds, what it does before writing, how migrating
// processes are serialised, and whether the missing migrations go into one
// transaction or each into its own.
//
// Invariants: a database the backend refuses (a schema newer than the list,
// another program's tables) is refused before anything is written, and
// again under the migrating transaction's lock, so that a process migrating
// at the same time is seen; every migration is applied once, with its row,
// in a transaction that rolls back on failure, leaving the previous schema;
// a failed migration is reported by number and name.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "store/sql/connection.h"

namespace orrery::sql {

struct Migration {
  int version;
  const char* name;
  const char* sql;
};

class MigrationBackend {
 public:
  virtual ~MigrationBackend() = default;

  virtual Connection& connection() = 0;
  // The schema's version (0: none yet), or the error that refuses a database
  // whose schema is newer than `latest` or that holds another program's
  // tables. Reads only.
  virtual Result<int> checked_version(int latest) = 0;
  // Once, after the first check and before any write (SQLite: WAL on).
  virtual Status before_writing() { return Ok{}; }
  // First in each migrating transaction, before the version is read again
  // (PostgreSQL: an advisory lock that queues migrating processes).
  virtual Status lock() { return Ok{}; }
  // CREATE TABLE IF NOT EXISTS schema_migrations (version, name, applied_at)
  // in the backend's types.
  virtual std::string_view history_table() const = 0;
  // After a migration and its row, in its transaction (SQLite: PRAGMA
  // user_version).
  virtual Status mark(const Migration&) { return Ok{}; }
  // Every missing migration in one transaction (true), or each in its own.
  virtual bool one_transaction() const = 0;
};

// Applies the migrations of `list` (in ascending versions) the database
// lacks; `now` is recorded as applied_at.
Status run_migrations(MigrationBackend& backend, const std::vector<Migration>& list,
                      std::int64_t now);

}  // namespace orrery::sql
