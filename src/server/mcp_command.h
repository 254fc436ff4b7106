// `orrery mcp [--allow read|run|manage] [--max-created-loops N]`
// (docs/mcp.md): a Model Context Protocol server on stdin and stdout, one
// JSON-RPC message per line, for an agent to read and drive orrery with.
//
// Invariants: stdout carries only protocol messages (diagnostics go to
// stderr); the session ends with exit 0 when stdin ends; a line over
// kMaxMcpLineBytes is answered with an error and skipped, never buffered
// whole; the tools are those of the scope (server/mcp_tools.h).
#pragma once

#include <iosfwd>
#include <string>

#include "cli/app.h"
#include "cli/command.h"

namespace orrery::server {

inline constexpr std::size_t kMaxMcpLineBytes = 4 * 1024 * 1024;

struct McpArgs {
  std::string allow = "read";
  int max_created_loops = 10;
};

// Answers the messages of `in` on `out` until `in` ends.
Result<int> mcp_command(const McpArgs& args, const cli::Context& context, std::istream& in);

// `mcp`, for cli::run (cli/app.h).
cli::CommandGroup mcp_commands();

}  // namespace orrery::server
