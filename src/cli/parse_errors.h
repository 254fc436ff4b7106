// The argument parser's failures in orrery's own words (docs/cli.md,
// "Messages"): every message names the command, the option or argument and
// the offending value, and says what is accepted. The parser's own wording
// never reaches the user. All translation happens here, by exception type.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace orrery::cli {

// Thrown from an option's callback with orrery's message for its value.
class OptionValueError : public CLI::ParseError {
 public:
  explicit OptionValueError(const std::string& message)
      : CLI::ParseError("OptionValueError", message, CLI::ExitCodes::ValidationError) {}
};

// Parses a whole number given to `option` (e.g. "-n"), or throws
// OptionValueError naming the option and the value.
int parse_whole_number(const std::string& option, const std::string& text);

// The usage error for a failed parse of `argv` (without argv[0]) by `root`.
Error translate_parse_error(const CLI::App& root, const CLI::ParseError& error,
                            const std::vector<std::string>& argv);

// After a successful parse: an option of the chosen commands given an empty
// value ("--cron ''"), or an empty LOOP, RUN or RUN_OR_LOOP argument, as a
// usage error naming it.
std::optional<Error> empty_option_value(const CLI::App& root);

// After a successful parse: a word before `--` taken as a target's COMMAND
// ("orrery add x --every 1h rm x"), which must follow `--`, refused as an
// unexpected argument. `argv` is without argv[0].
std::optional<Error> command_before_dashes(const CLI::App& root,
                                           const std::vector<std::string>& argv);

// The chosen commands, from the root to the deepest: "orrery cron explain".
std::string command_path(const CLI::App& root);

// The commands `app` offers, comma-separated (hidden ones left out).
std::string command_names(const CLI::App& app);

}  // namespace orrery::cli
