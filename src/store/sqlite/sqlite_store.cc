// SqliteStore: opening, creating and migrating the SQLite file.
#include "store/sqlite/sqlite_store.h"

#include "store/data_dir.h"
#include "store/sqlite/labels_function.h"
#include "store/sqlite/migrations.h"

namespace orrery {
namespace {

std::string directory_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

}  // namespace

Result<std::unique_ptr<SqliteStore>> SqliteStore::open(const SqliteOptions& options) {
  if (!options.probe) return internal_error("SqliteStore needs a process probe");
  if (auto dir = prepare_data_dir(directory_of(options.path)); !dir) return dir.error();
  if (auto file = create_private_file(options.path); !file) return file.error();
  auto db = sqlite::Database::open(options.path,
                                   {options.synchronous, options.busy_timeout_ms, options.vfs});
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
