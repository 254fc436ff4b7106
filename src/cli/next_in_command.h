// `orrery run next-in DURATION` (docs/cli.md): a run of a dynamic loop
// chooses how long after its finish its loop's next slot falls. It finds
// its run through ORRERY_RUN_ID, which every target gets.
//
// Invariants: only a running run's choice is stored (outside one, exit 2 and
// nothing changed); the choice is stored as given (0 to 365d) and clamped to
// the loop's [min, max] when the run finishes; the last choice wins.
#pragma once

#include <string>

#include "cli/command.h"

namespace orrery::cli {

struct NextInArgs {
  std::string duration;
};

Result<int> run_next_in_command(const NextInArgs& args, const Context& context);

}  // namespace orrery::cli
