#include "cli/store_access.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>
#include <utility>

#include "cli/caller_paths.h"
#include "cli/env_settings.h"
#include "core/text.h"
#include "engine/daemon.h"
#include "exec/clock.h"
#include "exec/process_identity.h"
#include "store/data_dir.h"
#include "store/db_location.h"
#include "store/home_layout.h"
#include "store/postgres/postgres_store.h"
#include "store/sqlite/sqlite_store.h"

namespace orrery::cli {
namespace {

constexpr int kMaxBusyTimeoutMs = 3'600'000;

// The server is checked before the data directory is made: a refused
// database leaves no trace. The directory still holds the runs' logs.
Result<OpenedStore> open_postgres(const Context& context, const DbLocation& location,
                                  int busy_timeout_ms, bool read_only, OpenedStore opened) {
  PostgresOptions options;
  options.url = location.postgres_url;
  options.shown_url = redacted_db_url(location.postgres_url);
  options.busy_timeout_ms = busy_timeout_ms;
  options.probe = std::make_shared<SystemProcessProbe>();
  options.now = context.now;
  auto store = PostgresStore::open(options);
  if (!store) return store.error();
  if (!read_only) {
    if (auto home = prepare_data_dir(opened.home); !home) return home.error();
  }
  opened.store = std::move(*store);
  return opened;
}

// The data directory and database the global options name.
Result<std::pair<std::string, DbLocation>> store_location(const Context& context) {
  // Absolute (docs/paths.md), so that runs (which start in other
  // directories) get a usable ORRERY_HOME and database path.
  auto home = caller_path("--home",
                          context.globals.home.empty() ? default_data_dir() : context.globals.home);
  if (!home) return home.error();
  DbLocation location;
  location.sqlite_path = HomeLayout(*home).database();
  // Checked before anything is created: a refused --db leaves no trace.
  if (context.globals.db_given || !context.globals.db.empty()) {
    auto chosen = db_location_of(context.globals.db);
    if (!chosen) return chosen.error();
    location = std::move(*chosen);
    if (location.kind == DbLocation::Kind::kSqlite) {
      auto path = caller_path("--db", location.sqlite_path);
      if (!path) return path.error();
      location.sqlite_path = std::move(*path);
    }
  }
  return std::pair<std::string, DbLocation>{*home, location};
}

Result<OpenedStore> open_store_at(const Context& context, const std::string& home,
                                  const DbLocation& location,
                                  std::optional<int> busy_timeout_cap_ms, bool read_only) {
  OpenedStore opened;
  opened.home = home;
  opened.read_only = read_only;
  auto timeout = busy_timeout_ms();
  if (!timeout) return timeout.error();
  const int busy_ms = busy_timeout_cap_ms ? std::min(*timeout, *busy_timeout_cap_ms) : *timeout;
  if (location.kind == DbLocation::Kind::kPostgres) {
    return open_postgres(context, location, busy_ms, read_only, std::move(opened));
  }
  const std::string path = location.sqlite_path;
  if (!read_only) {
    if (auto prepared = prepare_data_dir(opened.home); !prepared) return prepared.error();
  }
  SqliteOptions options;
  options.path = path;
  options.busy_timeout_ms = busy_ms;
  options.probe = std::make_shared<SystemProcessProbe>();
  options.now = context.now;
  options.read_only = read_only;
  auto store = SqliteStore::open(options);
  if (!store) return store.error();
  opened.store = std::move(*store);
  opened.database_path = path;
  return opened;
}

}  // namespace

Result<int> busy_timeout_ms() {
  auto value =
      milliseconds_from_env("ORRERY_BUSY_TIMEOUT_MS", 0, kMaxBusyTimeoutMs, kDefaultBusyTimeoutMs);
  if (!value) return value.error();
  return int(*value);
}

Result<OpenedStore> open_store_patiently(const Context& context, int busy_timeout_cap_ms,
                                         int patience_ms, const OpenRetried& on_retry) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(patience_ms);
  StoreBackoff backoff;
  while (true) {
    auto opened = open_store(context, busy_timeout_cap_ms);
    const auto now = std::chrono::steady_clock::now();
    if (opened || opened.error().code != ErrorCode::kUnavailable || now >= give_up) return opened;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(give_up - now);
    const DurationMs delay = std::min<DurationMs>(backoff.next(), left.count());
    on_retry(opened.error(), delay);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
  }
}

Result<OpenedStore> open_store(const Context& context, std::optional<int> busy_timeout_cap_ms) {
  auto location = store_location(context);
  if (!location) return location.error();
  return open_store_at(context, location->first, location->second, busy_timeout_cap_ms, false);
}

Result<OpenedStore> open_store_to_read(const Context& context) {
  auto location = store_location(context);
  if (!location) return location.error();
  const auto& [home, db] = *location;
  const bool on_file = db.kind != DbLocation::Kind::kPostgres;
  const bool read_only = exists_read_only(home) || (on_file && exists_read_only(db.sqlite_path));
  auto opened = open_store_at(context, home, db, std::nullopt, read_only);
  if (opened && read_only) {
    std::error_code ignored;
    const char* how = !on_file ? " is read-only: reading only"
                      : std::filesystem::exists(db.sqlite_path, ignored)
                          ? " is read-only: opened its database read-only; nothing is changed"
                          : " is read-only and holds no database: shown as empty";
    std::cerr << "orrery: " << terminal_text(home) << how << '\n';
  }
  return opened;
}

WorkStoreOpener work_store_opener(const Globals& globals) {
  return [globals](int busy_timeout_ms) -> Result<OpenedWorkStore> {
    const Context context{globals, wall_clock_now(), &std::cout, false};
    auto opened = open_store(context, busy_timeout_ms);
    if (!opened) return opened.error();
    return OpenedWorkStore{opened->home, std::move(opened->store)};
  };
}

}  // namespace orrery::cli
