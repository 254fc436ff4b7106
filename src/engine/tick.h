// The daemon's tick (docs/daemon.md, "The tick"): everything one wake-up
// of the daemon does with the store, in order:
//   1. recover runs whose supervisor is gone or whose lease expired
//      (exec/recovery.h), when asked (at start, after a supervisor exited
//      without finishing its run, a run lease's end, each lease heartbeat);
//   2. expire loops past expires_at, when asked (at start and each lease
//      heartbeat: a claim refuses an expired loop in any case, so this only
//      brings the status up to date);
//   3. settle finished runs (engine/settling.h): retries, the next slot of
//      fixed-delay and dynamic loops, once loops completed;
//   4. plan every due loop and every loop holding queued rows, oldest due
//      first (engine/planning.h), and commit all their plans in ONE fenced
//      transaction (Store::commit_plans).
// It returns the claims to start and the runs to stop; starting and
// stopping processes is the daemon's (engine/daemon.h).
//
// Invariants: every write is fenced by the daemon lease; a "daemon lease
// lost" error is returned at once, before anything else is written; a slot
// is only ever marked by the store's guarded writes, never by the tick on
// its own.
#pragma once

#include "core/result.h"
#include "engine/cooldowns.h"
#include "engine/tick_context.h"
#include "exec/process_control.h"
#include "store/store.h"

namespace orrery {

// The steps of a tick that are not done every time (each reads or writes
// more than a tick otherwise needs).
struct TickSteps {
  bool recover = false;
  bool expire = false;
};

// `processes` tells recovery which supervisors live and takes its signals.
Result<TickReport> run_tick(Store& store, ProcessControl& processes, const TickSettings& settings,
                            const TickTimes& times, TickSteps steps, const EventSink& log);

}  // namespace orrery
