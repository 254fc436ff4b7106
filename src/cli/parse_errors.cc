#include "cli/parse_errors.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <set>

namespace orrery::cli {
namespace {

// The root and each chosen command under it, root first.
std::vector<const CLI::App*> chosen_commands(const CLI::App& root) {
  std::vector<const CLI::App*> chain{&root};
  while (!chain.back()->get_subcommands().empty()) {
    chain.push_back(chain.back()->get_subcommands().front());
  }
  return chain;
}

bool is_flag(const CLI::Option& option) { return option.get_type_size_max() == 0; }

// How a command is referred to in a hint: "orrery cron explain --help".
std::string see_help(const std::string& path) { return "see " + path + " --help"; }

// An option of the chosen commands given more often than it may be.
const CLI::Option* repeated_option(const CLI::App& root) {
  for (const CLI::App* app : chosen_commands(root)) {
    for (const CLI::Option* option : app->get_options()) {
      if (!is_flag(*option) && !option->get_positional() &&
          option->get_multi_option_policy() == CLI::MultiOptionPolicy::Throw &&
          option->get_items_expected_max() == 1 && option->results().size() > 1) {
        return option;
      }
    }
  }
  return nullptr;
}

// A required option or argument of the chosen commands that was not given.
const CLI::Option* missing_required(const CLI::App& root) {
  const auto chain = chosen_commands(root);
  for (auto app = chain.rbegin(); app != chain.rend(); ++app) {
    for (const CLI::Option* option : (*app)->get_options()) {
      if (option->get_required() && option->count() == 0) return option;
    }
  }
  return nullptr;
}

std::string option_name(const CLI::Option& option) {
  return option.get_name(/*positional=*/false, /*all_options=*/false);
}

bool starts_with_dash(const std::string& text) { return text.size() > 1 && text[0] == '-'; }

// The leftover arguments no command took, in the order given.
Error unexpected_arguments(const CLI::App& root) {
  const auto chain = chosen_commands(root);
  std::vector<std::string> extras;
  for (const CLI::App* app : chain) {
    for (const std::string& extra : app->remaining(false)) extras.push_back(extra);
  }
  const CLI::App& deepest = *chain.back();
  const std::string path = command_path(root);
  // A word where a command belongs.
  if (!deepest.get_subcommands({}).empty()) {
    for (const std::string& extra : extras) {
      if (starts_with_dash(extra)) continue;
      if (chain.size() == 1) {
        return usage_error("unknown command '" + extra + "'; commands: " + command_names(deepest) +
                           " (" + see_help(path) + ")");
      }
      return usage_error("unknown command '" + path.substr(7) + " " + extra + "'; commands of " +
                         path + ": " + command_names(deepest));
    }
  }
  // The first leftover, in the order given, is the one reported.
  const std::string first = extras.empty() ? "" : extras.front();
  if (starts_with_dash(first)) {
    const std::string name = first.substr(0, first.find('='));
    return usage_error("unknown option '" + name + "' for " + path + " (" + see_help(path) + ")");
  }
  return usage_error("unexpected argument '" + first + "' for " + path + " (" + see_help(path) +
                     ")");
}

// The option named by the last argument, when it ran out of values.
Error missing_value(const CLI::App& root, const std::vector<std::string>& argv) {
  const std::string path = command_path(root);
  if (!argv.empty() && starts_with_dash(argv.back())) {
    const std::string option = argv.back().substr(0, argv.back().find('='));
    return usage_error(option + " needs a value (" + see_help(path) + ")");
  }
  return usage_error("an option of " + path + " needs a value (" + see_help(path) + ")");
}

// A flag given a value: "--wait=yes".
Error flag_with_value(const CLI::App& root, const std::vector<std::string>& argv) {
  const std::string path = command_path(root);
  for (const std::string& arg : argv) {
    const size_t equals = arg.find('=');
    if (starts_with_dash(arg) && equals != std::string::npos) {
      return usage_error(arg.substr(0, equals) + " takes no value, but was given '" +
                         arg.substr(equals + 1) + "' (" + see_help(path) + ")");
    }
  }
  return usage_error("a flag of " + path + " was given a value (" + see_help(path) + ")");
}

}  // namespace

int parse_whole_number(const std::string& option, const std::string& text) {
  if (text.empty()) throw OptionValueError(option + " cannot be empty");
  const bool digits =
      text.find_first_not_of("0123456789", text[0] == '-' ? 1 : 0) == std::string::npos &&
      text != "-";
  if (!digits) throw OptionValueError(option + " '" + text + "' is not a whole number");
  errno = 0;
  const long long value = std::strtoll(text.c_str(), nullptr, 10);
  if (errno == ERANGE || value > INT_MAX || value < INT_MIN) {
    throw OptionValueError(option + " '" + text + "' is too large");
  }
  return int(value);
}

std::string command_path(const CLI::App& root) {
  std::string path = "orrery";
  const auto chain = chosen_commands(root);
  for (size_t i = 1; i < chain.size(); ++i) path += " " + chain[i]->get_name();
  return path;
}

std::string command_names(const CLI::App& app) {
  std::string names;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_group().empty()) continue;  // hidden (internal) commands
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  return names;
}

Error translate_parse_error(const CLI::App& root, const CLI::ParseError& error,
                            const std::vector<std::string>& argv) {
  const std::string path = command_path(root);
  if (dynamic_cast<const OptionValueError*>(&error) != nullptr) return usage_error(error.what());
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) return unexpected_arguments(root);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
    if (const CLI::Option* option = repeated_option(root)) {
      return usage_error(option_name(*option) + " was given " +
                         std::to_string(option->results().size()) + " times ('" +
                         option->results().front() + "', '" + option->results()[1] +
                         "'); give it once");
    }
    return missing_value(root, argv);
  }
  if (dynamic_cast<const CLI::ConversionError*>(&error) != nullptr) {
    return flag_with_value(root, argv);
  }
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr) {
    if (const CLI::Option* option = missing_required(root)) {
      return usage_error(path + " needs " + option_name(*option) + " (" + see_help(path) + ")");
    }
  }
  return usage_error("the arguments of " + path + " are not valid (" + see_help(path) + ")");
}

std::optional<Error> empty_option_value(const CLI::App& root) {
  // Arguments that address a loop or a run; the others (a new name, a cron
  // expression, a target's arguments) are checked, or allowed empty, by
  // their commands.
  static const std::set<std::string> kAddresses{"LOOP", "RUN", "RUN_OR_LOOP"};
  const std::string path = command_path(root);
  for (const CLI::App* app : chosen_commands(root)) {
    for (const CLI::Option* option : app->get_options()) {
      if (is_flag(*option)) continue;
      if (option->get_positional() && kAddresses.count(option_name(*option)) == 0) continue;
      for (const std::string& value : option->results()) {
        if (!value.empty()) continue;
        const std::string hint = option->get_positional() ? " (see " + path + " --help)" : "";
        return usage_error(option_name(*option) + " cannot be empty" + hint);
      }
    }
  }
  return std::nullopt;
}

std::optional<Error> command_before_dashes(const CLI::App& root,
                                           const std::vector<std::string>& argv) {
  const auto dashes = std::find(argv.begin(), argv.end(), "--");
  const size_t after_dashes = dashes == argv.end() ? 0 : size_t(argv.end() - dashes - 1);
  for (const CLI::App* app : chosen_commands(root)) {
    for (const CLI::Option* option : app->get_options()) {
      if (!option->get_positional() || option_name(*option) != "COMMAND") continue;
      const std::vector<std::string>& words = option->results();
      if (words.size() <= after_dashes) continue;
      const std::string path = command_path(root);
      return usage_error("unexpected argument '" + words.front() + "' for " + path +
                         "; a target's command goes after -- (" + see_help(path) + ")");
    }
  }
  return std::nullopt;
}

}  // namespace orrery::cli
