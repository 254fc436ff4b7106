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

// What a listing leaves for its next page, told to a caller that asks (the
// HTTP API's cursor, docs/server.md) instead of written to stderr.
struct PageNote {
  bool more = false;    // something follows this page
  int next_offset = 0;  // the offset of the next page
};

struct Context {
  Globals globals;
  TimeMs now = 0;
  std::ostream* out = nullptr;
  bool out_is_tty = false;
  PageNote* page = nullptr;  // set: a listing tells its next page here
};

// A parsed command, ready to run: returns its exit status (0 or 1) or an Error.
using Command = std::function<Result<int>(const Context&)>;

}  // namespace orrery::cli
