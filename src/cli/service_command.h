// `orrery install-service [--print] [--force]` (docs/cli.md): a systemd user
// unit that runs `orrery daemon` on this data directory.
//
// Invariants: the unit is Type=notify with a watchdog, restarts on failure,
// and stops only the daemon (KillMode=process), never the supervisors of
// runs in flight; its ExecStart names this executable and the absolute data
// directory (and --db when given), each quoted per systemd's rules, so any
// path works. The default data directory gets orrery.service, any other
// orrery-<hash>.service (the hash of its path), so each data directory has
// its own unit. An existing unit that differs is never overwritten without
// --force; the same unit is left as it is.
#pragma once

#include <string>
#include <vector>

#include "cli/command.h"

namespace orrery::cli {

struct ServiceArgs {
  bool print = false;
  bool force = false;
};

Result<int> install_service_command(const ServiceArgs& args, const Context& context);

// One ExecStart word as systemd reads it back as `word`: % and $ doubled,
// and quoted (with C escapes) when it holds white space, quotes, a
// backslash, a semicolon or a control character, or is empty.
std::string systemd_word(const std::string& word);

// The unit's text for ExecStart = `command` (executable and arguments).
std::string service_unit(const std::vector<std::string>& command, const std::string& home);

// "orrery.service" for the default data directory, else
// "orrery-<8 hex digits>.service" derived from `home`.
std::string service_name(const std::string& home, const std::string& default_home);

}  // namespace orrery::cli
