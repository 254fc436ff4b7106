// Opening the store a command works on, from --home/--db (or ORRERY_HOME /
// ORRERY_DB): SQLite at <home>/orrery.db by default, the SQLite file a
// sqlite:// URL or plain path names, or the PostgreSQL database a
// postgres:// URL names (docs/storage.md). The home directory holds the
// runs' directories whatever the database.
#pragma once

#include <functional>
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
  bool read_only = false;  // opened by open_store_to_read on a read-only data directory
};

// `busy_timeout_cap_ms`, when given, caps how long the connection waits for
// a busy database (ORRERY_BUSY_TIMEOUT_MS or the default otherwise): the
// supervisor's connection gives up quickly and retries itself
// (docs/execution.md).
Result<OpenedStore> open_store(const Context& context,
                               std::optional<int> busy_timeout_cap_ms = std::nullopt);

// For a command that only reads (ls, show, runs, status, logs, ...): as
// open_store, but a data directory or database file this process cannot
// write (a mounted snapshot, an inspected backup) is opened read-only —
// nothing created, migrated or expired; a missing database reads as empty —
// and stderr says so (docs/storage.md, "A read-only data directory").
Result<OpenedStore> open_store_to_read(const Context& context);

// How long a command waits for a busy database: ORRERY_BUSY_TIMEOUT_MS, else
// the default (docs/storage.md).
Result<int> busy_timeout_ms();

// open_store with the connection's wait capped at `busy_timeout_cap_ms`,
// retried with the daemon's store backoff while the database is unavailable
// (busy, a full disk, a server that does not answer) for up to `patience_ms`:
// many daemons starting at once on one new file each get to open it.
// `on_retry` is told each error that is retried and the delay before the
// next attempt.
using OpenRetried = std::function<void(const Error& error, DurationMs delay)>;
Result<OpenedStore> open_store_patiently(const Context& context, int busy_timeout_cap_ms,
                                         int patience_ms, const OpenRetried& on_retry);

// How a supervisor process opens the store the global options name
// (exec/supervisor_main.h).
WorkStoreOpener work_store_opener(const Globals& globals);

}  // namespace orrery::cli
