#include "cli/store_access.h"

#include <filesystem>

#include "exec/process_identity.h"
#include "store/data_dir.h"
#include "store/sqlite/sqlite_store.h"

namespace orrery::cli {

Result<OpenedStore> open_store(const Context& context) {
  OpenedStore opened;
  // Absolute, so that runs (which start in other directories) get a usable ORRERY_HOME.
  opened.home = std::filesystem::absolute(context.globals.home.empty() ? default_data_dir()
                                                                       : context.globals.home)
                    .lexically_normal()
                    .string();
  if (opened.home.size() > 1 && opened.home.back() == '/') opened.home.pop_back();
  std::string path = opened.home + "/orrery.db";
  const std::string& db = context.globals.db;
  if (db.rfind("postgres://", 0) == 0 || db.rfind("postgresql://", 0) == 0) {
    return usage_error("--db " + db +
                       ": PostgreSQL is not available in this version of orrery "
                       "yet; use the default SQLite store");
  }
  if (db.rfind("sqlite://", 0) == 0) {
    path = db.substr(9);
  } else if (!db.empty()) {
    path = db;
  }
  if (auto home = prepare_data_dir(opened.home); !home) return home.error();
  SqliteOptions options;
  options.path = path;
  options.probe = std::make_shared<SystemProcessProbe>();
  options.now = context.now;
  auto store = SqliteStore::open(options);
  if (!store) return store.error();
  opened.store = std::move(*store);
  return opened;
}

}  // namespace orrery::cli
