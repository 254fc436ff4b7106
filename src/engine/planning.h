// Planning the due loops of a tick (docs/daemon.md, "The tick"): the loops
// that are due and those holding queued rows, oldest due first, are each
// planned (core/tick_plan.h) with their running and queued runs, their
// account's cooldown and the capacity left under --max-running, and every
// plan is committed in one fenced transaction (Store::commit_plans).
//
// Invariants: claims never exceed --max-running minus the runs already
// running; a loop whose state moved between the read and the commit
// writes nothing and is planned again at once; only due loops are read.
#pragma once

#include "core/result.h"
#include "engine/cooldowns.h"
#include "engine/tick_context.h"

namespace orrery {

inline constexpr int kDueBatch = 1000;            // due loops read per tick
inline constexpr int kActiveRunsLimit = 100'000;  // running and queued runs read per tick

Result<TickReport> plan_due_loops(Store& store, const TickSettings& settings,
                                  const TickTimes& times, const CooldownMap& cooldowns,
                                  const EventSink& log);

}  // namespace orrery
