// The command table as `orrery … --help` shows it: every command path and,
// for a leaf command, the positional arguments its usage line names. Built
// by walking the help of each group, so a command added to the CLI is
// covered by the tests that iterate over the table without being listed.
#pragma once

#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace orrery::testing {

struct Positional {
  std::string name;       // "LOOP", "WORKFLOW"
  bool required = false;  // shown without brackets
  bool variadic = false;  // "[COMMAND...]": takes every word left
};

struct CommandEntry {
  std::vector<std::string> path;         // {"workflow", "cancel"}
  std::vector<std::string> subcommands;  // a group's commands; empty for a leaf
  std::vector<Positional> positionals;   // a leaf's, in order
};

// The help text of a command path ({} is the root).
using HelpOf = std::function<std::string(const std::vector<std::string>& path)>;

inline std::vector<std::string> help_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The words of the "Usage:" line after "[OPTIONS]", as positionals.
inline std::vector<Positional> usage_positionals(const std::string& help) {
  std::vector<Positional> positionals;
  for (const std::string& line : help_lines(help)) {
    if (line.rfind("Usage:", 0) != 0) continue;
    std::istringstream words(line);
    bool after_options = false;
    for (std::string word; words >> word;) {
      if (word == "[OPTIONS]") {
        after_options = true;
        continue;
      }
      if (!after_options || word == "[SUBCOMMAND]") continue;
      Positional positional;
      positional.required = word.front() != '[';
      positional.variadic = word.find("...") != std::string::npos;
      for (char c : word) {
        if (c != '[' && c != ']' && c != '.') positional.name += c;
      }
      positionals.push_back(positional);
    }
  }
  return positionals;
}

// The names listed under "Subcommands:".
inline std::vector<std::string> listed_subcommands(const std::string& help) {
  std::vector<std::string> names;
  bool in_section = false;
  for (const std::string& line : help_lines(help)) {
    if (!line.empty() && line[0] != ' ') {
      in_section = line == "Subcommands:";
      continue;
    }
    if (in_section && line.size() > 2 && line[2] != ' ') {
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
  }
  return names;
}

// Every command path under the root, groups and leaves, depth first.
inline std::vector<CommandEntry> command_table(const HelpOf& help_of) {
  std::vector<CommandEntry> table;
  std::function<void(const std::vector<std::string>&)> walk =
      [&](const std::vector<std::string>& path) {
        const std::string help = help_of(path);
        CommandEntry entry{path, listed_subcommands(help), {}};
        if (entry.subcommands.empty()) entry.positionals = usage_positionals(help);
        if (!path.empty()) table.push_back(entry);
        for (const std::string& sub : entry.subcommands) {
          std::vector<std::string> child = path;
          child.push_back(sub);
          walk(child);
        }
      };
  walk({});
  return table;
}

// Every command name at any level, each once.
inline std::set<std::string> command_names(const std::vector<CommandEntry>& table) {
  std::set<std::string> names;
  for (const CommandEntry& entry : table) names.insert(entry.path.back());
  return names;
}

// A leaf's path with a value for each positional but a variadic one.
inline std::vector<std::string> filled_command(const CommandEntry& entry,
                                               const std::string& value) {
  std::vector<std::string> args = entry.path;
  for (const Positional& positional : entry.positionals) {
    if (!positional.variadic) args.push_back(value);
  }
  return args;
}

}  // namespace orrery::testing
