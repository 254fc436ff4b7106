// Carrying out what `orrery trigger` does while a run of the loop is in
// progress (docs/cli.md, "trigger"), as core/trigger_overlap.h decides it:
// reading the loop's runs and the daemon lease, writing the queued run and
// waiting for it, or cancelling the running runs for `replace` (SIGTERM to
// each supervisor, which stops its target and finalizes it `cancelled`).
//
// Invariants: a queued row is written by one plan commit guarded by the
// loop's state version, so it never races a tick into a second row; nothing
// is signalled but a supervisor whose pid and start time still match the
// run's record.
#pragma once

#include <string>

#include "cli/command.h"
#include "core/loop.h"
#include "store/store.h"

namespace orrery::cli {

enum class TriggerGoOn { kRunNow, kDone, kDoneFailed };

// kRunNow: trigger claims and runs its slot now; kDone: the slot was queued
// and printed (with `wait`, also waited for: kDoneFailed when that run did
// not succeed). A refusal is an Error. With `wait`, a queued run needs a
// running daemon to start it: without one nothing is queued (a conflict).
Result<TriggerGoOn> apply_trigger_overlap(Store& store, const std::string& home, const Loop& loop,
                                          bool force, bool wait, const Context& context);

}  // namespace orrery::cli
