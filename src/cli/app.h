// The command-line entry point: parses arguments, runs the command, maps its
// result to an exit status (docs/cli.md): 0 success, 1 the awaited work did
// not succeed, 2 usage or validation error, 3 not found, 4 conflict, 70
// internal error, 75 temporary failure. Parser failures are reported in
// orrery's words (cli/parse_errors.h); with --json every outcome, --help and
// --version included, is one JSON document on stdout.
#pragma once

#include <functional>
#include <vector>

#include "cli/command.h"

namespace CLI {
class App;
}

namespace orrery::cli {

// Commands of a layer above the CLI (the server's `serve` and `mcp`), added
// by the program's entry point: each adds its subcommands to the app and
// sets `command` from their callbacks, as every command does.
using CommandGroup = std::function<void(CLI::App& app, Command& command)>;

int run(int argc, char** argv, const std::vector<CommandGroup>& more_commands = {});

}  // namespace orrery::cli
