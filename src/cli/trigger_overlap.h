// What `orrery trigger` does while a run of the loop is in progress
// (docs/cli.md, "trigger"): the loop's overlap policy decides, as it does
// for a scheduled slot — skip refuses (exit 4), queue holds one queued run
// for the daemon to start when the running one ends, allow runs alongside,
// replace cancels the running run (SIGTERM to its supervisor, which stops
// its target and finalizes it `cancelled`) and then runs. --force runs
// regardless.
//
// Invariants: a loop holds at most one queued run; a queued row is written
// by one plan commit guarded by the loop's state version, so it never races
// a tick into a second row; nothing is signalled but a supervisor whose pid
// and start time still match the run's record.
#pragma once

#include <string>

#include "cli/command.h"
#include "core/loop.h"
#include "store/store.h"

namespace orrery::cli {

enum class TriggerGoOn { kRunNow, kDone };

// kRunNow: trigger claims and runs its slot now; kDone: the slot was queued
// and printed (with `wait`, also waited for). A refusal is an Error.
Result<TriggerGoOn> apply_trigger_overlap(Store& store, const std::string& home, const Loop& loop,
                                          bool force, bool wait, const Context& context);

}  // namespace orrery::cli
