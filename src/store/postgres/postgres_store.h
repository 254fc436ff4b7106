// PostgresStore: the Store on a PostgreSQL database that runners on several
// hosts share: SqlStore over a PostgreSQL connection, connected and migrated
// here.
//
// Leases are taken and compared on the server's clock, so that hosts whose
// clocks disagree cannot take each other's leases (docs/storage.md, "Whose
// clock"); tests that drive time themselves trust the caller's clock.
#pragma once

#include <memory>
#include <string>

#include "store/postgres/pg_connection.h"
#include "store/sql/sql_store.h"

namespace orrery {

struct PostgresOptions {
  std::string url;             // postgres:// or postgresql://, with any libpq parameters
  std::string shown_url;       // the URL as messages show it (no password)
  int busy_timeout_ms = 5000;  // how long a write waits for a row another process holds
  std::shared_ptr<const ProcessProbe> probe;  // required
  TimeMs now = 0;                             // for schema_migrations.applied_at
  bool trust_caller_clock = false;            // tests only
};

class PostgresStore final : public SqlStore {
 public:
  // Connects, refuses a server or database orrery cannot use, migrates to the
  // latest schema; then active loops past their expiry become expired.
  static Result<std::unique_ptr<PostgresStore>> open(const PostgresOptions& options);

  postgres::PgConnection& database() { return static_cast<postgres::PgConnection&>(connection()); }

 private:
  PostgresStore(std::unique_ptr<postgres::PgConnection> db,
                std::shared_ptr<const ProcessProbe> probe, bool trust_caller_clock)
      : SqlStore(std::move(db), std::move(probe), trust_caller_clock) {}
};

}  // namespace orrery
