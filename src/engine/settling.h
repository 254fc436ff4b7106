// Settling finished runs (docs/daemon.md, "The tick"): a run the daemon
// planned changes its loop's schedule when it ends — a retry, the next slot
// of a fixed-delay or dynamic loop, a once loop's completion
// (core/run_settlement.h). The store lists the runs not yet settled; each is
// settled with its loop's state by a guarded write, and the runs of distinct
// loops together in one transaction (Store::settle_runs): a later run of a
// loop already in the batch goes in the next one, its state computed from
// the loop as the first left it.
//
// Invariants: a run is settled exactly once; a loop whose state moved
// meanwhile (a conflict) is settled again at the next tick; a loop whose
// schedule cannot be read keeps its state, so one bad loop never blocks the
// others. Each finished run is logged once, when it is settled.
#pragma once

#include "core/result.h"
#include "engine/cooldowns.h"
#include "engine/tick_context.h"

namespace orrery {

inline constexpr int kSettleBatch = 500;  // runs settled per tick

struct SettleResult {
  bool more = false;        // more runs wait to be settled
  bool retry_soon = false;  // a settle conflicted
};

Result<SettleResult> settle_runs(Store& store, const CooldownMap& cooldowns, TimeMs now,
                                 const Fence& fence, const EventSink& log);

// "run R of loop NAME succeeded (slot T, attempt A, 1.2s)", for the log.
std::string finished_line(const Run& run);

}  // namespace orrery
