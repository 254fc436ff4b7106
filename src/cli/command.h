// What every command receives: the global options and the instant the
// invocation started. Commands write their document to `out` and report
// failure as an Error; they never exit the process.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

#include "core/result.h"
#include "core/time.h"

namespace orrery::cli {

struct Globals {
  std::string home;       // --home / ORRERY_HOME
  std::string db;         // --db / ORRERY_DB
  bool db_given = false;  // --db was given, even empty (refused then)
  bool json = false;
};

struct Context {
  Globals globals;
  TimeMs now = 0;
  std::ostream* out = nullptr;
  bool out_is_tty = false;
};

// A parsed command, ready to run: returns its exit status (0 or 1) or an Error.
using Command = std::function<Result<int>(const Context&)>;

}  // namespace orrery::cli
