// `orrery serve [--listen HOST:PORT] [--token-file FILE]` (docs/server.md):
// the HTTP API, the event stream, the metrics and the dashboard, in the
// foreground until SIGTERM or SIGINT.
//
// Invariants: the default address is loopback (127.0.0.1:8470); an address
// that is not loopback is refused without --token-file (exit 2); a token
// file must be a regular file of this user's that others cannot read,
// holding one token of 16 to 4096 printable bytes; the store is opened (and
// migrated) before the port is bound, so a bad --db never listens.
#pragma once

#include <string>

#include "cli/app.h"
#include "cli/command.h"

namespace orrery::server {

struct ServeArgs {
  std::string listen = "127.0.0.1:8470";
  std::string token_file;
  int threads = 32;  // requests answered at once; half may be event streams
};

Result<int> serve_command(const ServeArgs& args, const cli::Context& context);

// The token a --token-file holds.
Result<std::string> read_token_file(const std::string& path);

// `serve`, for cli::run (cli/app.h).
cli::CommandGroup serve_commands();

}  // namespace orrery::server
