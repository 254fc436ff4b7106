// `orrery status` (docs/cli.md): the daemon's lease, loops and runs by
// status, the running runs, the next due slot and the cooldowns in force, as
// read in one look at the store (each part read once; nothing is changed).
#pragma once

#include "cli/command.h"

namespace orrery::cli {

Result<int> status_command(const Context& context);

}  // namespace orrery::cli
