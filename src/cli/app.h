// The command-line entry point: parses arguments, runs the command, maps its
// result to an exit status (docs/cli.md): 0 success, 1 the awaited work did
// not succeed, 2 usage or validation error, 3 not found, 4 conflict, 70
// internal error, 75 temporary failure. Parser failures are reported in
// orrery's words (cli/parse_errors.h); with --json every outcome, --help and
// --version included, is one JSON document on stdout.
#pragma once

namespace orrery::cli {

int run(int argc, char** argv);

}  // namespace orrery::cli
