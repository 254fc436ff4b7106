// Schema migrations for the PostgreSQL store: numbered like SQLite's (a
// version names the same schema on both: PostgreSQL starts at version 4),
// recorded in schema_migrations, whose largest version is the database's,
// and applied by the one runner (store/sql/migration_runner.h).
//
// Invariants: a server older than kMinServerVersion, a database holding
// another program's tables, or a schema newer than the binary's is refused,
// naming what was found and what is needed, before anything is written;
// every missing migration is applied in one transaction under an advisory
// lock, so that processes migrating at once are serialised and a failure
// rolls back to the previous schema (docs/storage.md, "Migrations").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "store/postgres/pg_connection.h"
#include "store/sql/migration_runner.h"

namespace orrery::postgres {

// PostgreSQL 12: the oldest server orrery supports.
inline constexpr int kMinServerVersion = 120000;

using Migration = sql::Migration;

const std::vector<Migration>& migrations();

// Refuses a server older than kMinServerVersion (`version` as libpq reports
// it: 150018 for 15.18), naming it by `shown_url`.
Status check_server_version(int version, const std::string& shown_url);

// Refuses an unsupported server or database (read-only), then applies what
// is missing; `now` is recorded as applied_at.
Status migrate(PgConnection& db, std::int64_t now);
// Applies a given list (for tests of failing and concurrent migrations).
Status migrate_with(PgConnection& db, const std::vector<Migration>& list, std::int64_t now);

}  // namespace orrery::postgres
