// `orrery edit LOOP [any option of add]` (docs/cli.md): changes the given
// options of a loop, validated exactly like `add` (core/loop_edit.h).
//
// Invariants: bad input changes nothing (exit 2; the loop and its secrets
// file are as they were); a write is guarded by the loop's versions, so an
// edit never overwrites a change made since the loop was read; only a
// schedule change writes the schedule state; a run in progress keeps the
// loop it started with (its supervisor read it at start).
#pragma once

#include <string>

#include "cli/command.h"
#include "core/loop_spec.h"

namespace orrery::cli {

struct EditArgs {
  std::string loop;  // id, id prefix (>= 6) or name
  LoopSpec spec;     // the options given; empty ones are not given
};

Result<int> edit_loop_command(const EditArgs& args, const Context& context);

}  // namespace orrery::cli
