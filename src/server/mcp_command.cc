#include "server/mcp_command.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "server/api.h"
#include "server/mcp_session.h"
#include "server/mcp_tools.h"

namespace orrery::server {
namespace {

// Reads one line of at most kMaxMcpLineBytes; false at the end of `in`.
// A longer line is read to its end and dropped (`too_long` set).
bool read_line(std::istream& in, std::string& line, bool& too_long) {
  line.clear();
  too_long = false;
  char c = 0;
  bool any = false;
  while (in.get(c)) {
    any = true;
    if (c == '\n') return true;
    if (line.size() < kMaxMcpLineBytes) {
      line += c;
    } else {
      too_long = true;
    }
  }
  return any;
}

}  // namespace

Result<int> mcp_command(const McpArgs& args, const cli::Context& context, std::istream& in) {
  auto scope = parse_mcp_scope(args.allow);
  if (!scope) return scope.error();
  if (args.max_created_loops < 0 || args.max_created_loops > 10'000) {
    return usage_error("--max-created-loops " + std::to_string(args.max_created_loops) +
                       ": expected 0 to 10000");
  }
  const ApiSettings settings{context.globals};
  const ApiRouter router = api_router(settings);
  McpToolOptions options;
  options.scope = *scope;
  options.max_created_loops = args.max_created_loops;
  McpSession session(mcp_tools(router, settings, options), mcp_resources(router), ORRERY_VERSION);
  std::ostream& out = *context.out;
  std::string line;
  bool too_long = false;
  while (read_line(in, line, too_long)) {
    if (too_long) {
      out << R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"a message is at most )"
          << kMaxMcpLineBytes << R"( bytes"}})" << '\n'
          << std::flush;
      continue;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    if (auto response = session.handle(line)) out << *response << '\n' << std::flush;
    if (!out) return internal_error("orrery mcp: cannot write to stdout");
  }
  return 0;
}

cli::CommandGroup mcp_commands() {
  return [](CLI::App& app, cli::Command& command) {
    auto args = std::make_shared<McpArgs>();
    CLI::App* mcp = app.add_subcommand(
        "mcp", "Serve the Model Context Protocol on stdin/stdout, for an agent (foreground)");
    mcp->add_option("--allow", args->allow,
                    "read (the default): list and show; run: and trigger, next-in, goal "
                    "updates; manage: and create, pause, resume, enqueue");
    mcp->add_option("--max-created-loops", args->max_created_loops,
                    "loops create_loop may add in one session (default 10)");
    mcp->callback([args, &command] {
      command = [args](const cli::Context& c) { return mcp_command(*args, c, std::cin); };
    });
  };
}

}  // namespace orrery::server
