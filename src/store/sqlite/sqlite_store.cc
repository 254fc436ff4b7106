// SqliteStore: opening, creating and migrating the SQLite file.
#include "store/sqlite/sqlite_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <vector>

#include "store/data_dir.h"
#include "store/sqlite/labels_function.h"
#include "store/sqlite/migrations.h"

namespace orrery {
namespace {

// Whether `path`-wal holds anything: commits not yet copied into the file.
bool has_wal_content(const std::string& path) {
  struct stat info {};
  return ::stat((path + "-wal").c_str(), &info) == 0 && info.st_size > 0;
}

// The file opened for reading only. Without a write-ahead log to read (none
// is open: every commit is in the file), as immutable, which creates no
// -wal or -shm beside it; with one, read through it, and as immutable only
// when its -shm cannot be made.
Result<std::unique_ptr<sqlite::Database>> open_to_read(const SqliteOptions& options) {
  Result<std::unique_ptr<sqlite::Database>> last = internal_error("not opened");
  std::vector<sqlite::ReadOnly> modes = {sqlite::ReadOnly::kImmutable};
  if (has_wal_content(options.path)) modes.insert(modes.begin(), sqlite::ReadOnly::kReadOnly);
  for (sqlite::ReadOnly mode : modes) {
    last = sqlite::Database::open(
        options.path, {options.synchronous, options.busy_timeout_ms, options.vfs, mode});
    if (!last) continue;
    if (auto checked = sqlite::check_schema(**last, sqlite::latest_schema_version()); !checked) {
      // A schema refused is refused either way; a file that could not be read so is
      // tried as immutable.
      const ErrorCode code = checked.error().code;
      if (code == ErrorCode::kConflict || code == ErrorCode::kUsage) return checked.error();
      last = checked.error();
      continue;
    }
    return last;
  }
  return last;
}

// The database a read-only store reads (docs/storage.md, "A read-only data directory").
Result<std::unique_ptr<sqlite::Database>> read_only_database(const SqliteOptions& options) {
  const bool exists = ::access(options.path.c_str(), F_OK) == 0;
  auto db = exists ? open_to_read(options)
                   : sqlite::Database::open(":memory:",
                                            {options.synchronous, 0, "", sqlite::ReadOnly::kNone});
  if (!db) return db.error();
  if (auto registered = sqlite::register_labels_function((*db)->handle()); !registered) {
    return registered.error();
  }
  if (!exists) {
    if (auto migrated = sqlite::migrate(**db, options.now); !migrated) return migrated.error();
  } else {
    auto version = sqlite::schema_version(**db);
    if (!version) return version.error();
    if (*version != sqlite::latest_schema_version()) {
      return unavailable_error(options.path + ": the database schema is version " +
                               std::to_string(*version) + ", older than this orrery's (" +
                               std::to_string(sqlite::latest_schema_version()) +
                               "), and a read-only database cannot be migrated; open it once "
                               "where it can be written");
    }
  }
  return db;
}

}  // namespace

Result<std::unique_ptr<SqliteStore>> SqliteStore::open(const SqliteOptions& options) {
  if (!options.probe) return internal_error("SqliteStore needs a process probe");
  if (options.read_only) {
    auto db = read_only_database(options);
    if (!db) return db.error();
    return std::unique_ptr<SqliteStore>(new SqliteStore(std::move(*db), options.probe));
  }
  if (auto dir = prepare_data_dir(directory_of(options.path)); !dir) return dir.error();
  if (auto file = create_private_file(options.path); !file) return file.error();
  auto db = sqlite::Database::open(options.path, {options.synchronous, options.busy_timeout_ms,
                                                  options.vfs, sqlite::ReadOnly::kNone});
  if (!db) return db.error();
  if (auto registered = sqlite::register_labels_function((*db)->handle()); !registered) {
    return registered.error();
  }
  if (auto migrated = sqlite::migrate(**db, options.now); !migrated) {
    const std::string& message = migrated.error().message;
    // Database errors name the file already; schema refusals do not.
    if (message.find(options.path) != std::string::npos) return migrated.error();
    return Error{migrated.error().code, options.path + ": " + message};
  }
  // Only a file that proved to be ours is tightened.
  if (auto file = make_files_private(options.path); !file) return file.error();
  (*db)->remember_files();
  std::unique_ptr<SqliteStore> store(new SqliteStore(std::move(*db), options.probe));
  // So that no command shows an expired loop as active (docs/storage.md, "Expiry").
  if (auto expired = store->expire_loops(options.now, {}); !expired) return expired.error();
  return store;
}

}  // namespace orrery
