// Opening the store a command works on, from --home/--db (or ORRERY_HOME /
// ORRERY_DB): SQLite at <home>/orrery.db by default, the SQLite file a
// sqlite:// URL or plain path names, or the PostgreSQL database a
// postgres:// URL names (docs/storage.md). The home directory holds the
// runs' directories whatever the database.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "cli/command.h"
#include "exec/supervisor_main.h"
#include "store/store.h"

namespace orrery::cli {

struct OpenedStore {
  std::string home;
  std::string database_path;  // the SQLite file; empty for PostgreSQL
  std::unique_ptr<Store> store;
};

// `busy_timeout_cap_ms`, when given, caps how long the connection waits for
// a busy database (ORRERY_BUSY_TIMEOUT_MS or the default otherwise): the
// supervisor's connection gives up quickly and retries itself
// (docs/execution.md).
Result<OpenedStore> open_store(const Context& context,
                               std::optional<int> busy_timeout_cap_ms = std::nullopt);

// How a supervisor process opens the store the global options name
// (exec/supervisor_main.h).
WorkStoreOpener work_store_opener(const Globals& globals);

}  // namespace orrery::cli
