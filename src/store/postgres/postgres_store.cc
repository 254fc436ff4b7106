// PostgresStore: connecting to and migrating the PostgreSQL database.
#include "store/postgres/postgres_store.h"

#include "store/postgres/pg_migrations.h"

namespace orrery {

Result<std::unique_ptr<PostgresStore>> PostgresStore::open(const PostgresOptions& options) {
  if (!options.probe) return internal_error("PostgresStore needs a process probe");
  auto db = postgres::PgConnection::open(options.url, options.shown_url, options.busy_timeout_ms);
  if (!db) return db.error();
  if (auto migrated = postgres::migrate(**db, options.now); !migrated) return migrated.error();
  std::unique_ptr<PostgresStore> store(
      new PostgresStore(std::move(*db), options.probe, options.trust_caller_clock));
  // So that no command shows an expired loop as active (docs/storage.md, "Expiry").
  if (auto expired = store->expire_loops(options.now, {}); !expired) return expired.error();
  return store;
}

}  // namespace orrery
