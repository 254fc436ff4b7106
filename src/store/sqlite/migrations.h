// Schema migrations for the SQLite store: numbered, applied in order by the
// one runner (store/sql/migration_runner.h), each in its own transaction
// together with its row in schema_migrations and the new PRAGMA
// user_version.
//
// Invariants: a database whose user_version is newer than the latest
// migration is refused, naming both versions, and left untouched; a
// migration that fails rolls back and leaves the previous schema.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "store/sql/migration_runner.h"
#include "store/sqlite/database.h"

namespace orrery::sqlite {

using Migration = sql::Migration;

const std::vector<Migration>& migrations();
int latest_schema_version();

// Refuses, changing nothing, a file that is not an SQLite database, a
// database of another program, or a schema newer than `latest`.
Status check_schema(Database& db, int latest);
// The schema version the file is at (0: none yet), after check_schema.
Result<int> schema_version(Database& db);
// Applies what is missing (after check_schema, with WAL enabled); `now` is
// recorded as applied_at.
Status migrate(Database& db, std::int64_t now);
// Applies a given list (for tests of failing migrations).
Status migrate_with(Database& db, const std::vector<Migration>& list, std::int64_t now);

}  // namespace orrery::sqlite
