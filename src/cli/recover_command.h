// `orrery recover`: runs recovery on demand (docs/cli.md, docs/execution.md
// "Recovery"), so that a user without a daemon can finish the runs whose
// supervisor is gone.
#pragma once

#include "cli/command.h"

namespace orrery::cli {

Result<int> recover_command(const Context& context);

}  // namespace orrery::cli
