#include "store/sql/migration_runner.h"

#include <string>

namespace orrery::sql {
namespace {

// The migration and its row, inside the caller's transaction.
Status apply(MigrationBackend& backend, const Migration& migration, std::int64_t now) {
  const auto failed = [&](const Error& error) {
    return Error{error.code, "schema migration " + std::to_string(migration.version) + " (" +
                                 migration.name + ") failed and was rolled back: " + error.message};
  };
  Connection& db = backend.connection();
  if (auto status = db.exec(migration.sql); !status) return failed(status.error());
  auto record =
      db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)");
  if (!record) return failed(record.error());
  if (auto status =
          (*record)->bind(1, migration.version).bind(2, migration.name).bind(3, now).run();
      !status) {
    return failed(status.error());
  }
  if (auto status = backend.mark(migration); !status) return failed(status.error());
  return Ok{};
}

// One migrating transaction: under its lock, the version is read and judged
// again, then every missing migration (or the first) is applied. True when
// another transaction may find more to apply.
Result<bool> apply_missing(MigrationBackend& backend, const std::vector<Migration>& list,
                           int latest, std::int64_t now) {
  Connection& db = backend.connection();
  auto transaction = Transaction::begin(db);
  if (!transaction) return transaction.error();
  if (auto locked = backend.lock(); !locked) return locked.error();
  auto version = backend.checked_version(latest);
  if (!version) return version.error();
  if (*version >= latest) return false;
  if (auto history = db.exec(backend.history_table()); !history) return history.error();
  for (const Migration& migration : list) {
    if (migration.version <= *version) continue;
    if (auto status = apply(backend, migration, now); !status) return status.error();
    if (!backend.one_transaction()) break;
  }
  if (auto committed = (*transaction)->commit(); !committed) return committed.error();
  return !backend.one_transaction();
}

}  // namespace

Status run_migrations(MigrationBackend& backend, const std::vector<Migration>& list,
                      std::int64_t now) {
  const int latest = list.empty() ? 0 : list.back().version;
  // Read-only first: a database that is not ours is refused before anything is written.
  auto version = backend.checked_version(latest);
  if (!version) return version.error();
  if (auto ready = backend.before_writing(); !ready) return ready;
  if (*version == latest) return Ok{};
  // Processes migrating at once take turns (the backend's lock or its write
  // transaction); each reads the version again under it, so every migration
  // is applied once.
  while (true) {
    auto more = apply_missing(backend, list, latest, now);
    if (!more) return more.error();
    if (!*more) return Ok{};
  }
}

}  // namespace orrery::sql
