// Opening the store a command works on, from --home/--db (or ORRERY_HOME /
// ORRERY_DB): SQLite at <home>/orrery.db by default, or the SQLite file a
// sqlite:// URL or plain path names. PostgreSQL URLs are refused until that
// backend exists.
#pragma once

#include <memory>
#include <string>

#include "cli/command.h"
#include "store/store.h"

namespace orrery::cli {

struct OpenedStore {
  std::string home;
  std::unique_ptr<Store> store;
};

Result<OpenedStore> open_store(const Context& context);

}  // namespace orrery::cli
