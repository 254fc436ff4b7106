// When the daemon wakes next (docs/daemon.md, "Wake-ups"), as a function of
// its timers and the store's wake times: the earliest of the next lease
// heartbeat, the next watchdog ping, each pending SIGKILL, pending runs to
// claim (or their retry), a runner's next try of the lease, a tick's retry,
// and — for a scheduling daemon that is not --once and whose last tick
// succeeded — the next due slot, the end of a cooldown and a run lease's
// end. The daemon carries its timers on the steady clock (a step of the wall
// clock must not stretch them) and waits on the wall clock.
//
// Invariants:
// - work left for another tick (`more`) wakes it at once;
// - a timer already past wakes it now, never before now;
// - a tick's pending retry hides the wake times (stale after a store error);
// - a run lease's end is looked at no sooner than kLeaseRecheckMs from now
//   (one already past is being recovered or deferred: never a tight loop);
// - a runner (not holding the lease) wakes for its heartbeat, the watchdog,
//   pending kills, pending runs and its lease check only.
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "core/time.h"
#include "store/slot_claims.h"

namespace orrery {

using SteadyTime = std::chrono::steady_clock::time_point;

inline constexpr DurationMs kLeaseRecheckMs = 1000;  // a run lease end that has passed
inline constexpr DurationMs kLeaseCheckSlackMs =
    50;  // a runner tries the lease this long after its end

// A process group signalled SIGTERM whose supervisor was gone: SIGKILL at `at`.
struct PendingKill {
  int pgid = 0;
  SteadyTime at;
};

// The daemon's own timers, on the steady clock.
struct DaemonTimers {
  SteadyTime heartbeat;                   // the next heartbeat (the lease's, or a runner's row)
  std::optional<SteadyTime> watchdog;     // the next systemd watchdog ping
  std::vector<PendingKill> kills;         // groups to SIGKILL
  std::optional<SteadyTime> tick_retry;   // a tick after a store error or a conflict
  std::optional<SteadyTime> claim_retry;  // claiming pending runs after a store error
  SteadyTime lease_check;                 // a runner's next try of the lease
};

// What else the next wake-up depends on.
struct WakeState {
  bool more = false;       // work was left for another tick at once
  bool claim_due = false;  // pending runs to claim (a shared database only)
  bool scheduling = true;  // holds the lease; else a runner only
  bool once = false;       // daemon --once: due slots are not waited for
  WakeTimes wake;          // the store's, after the last tick that succeeded
};

// Both clocks, read at one instant.
struct DaemonNow {
  TimeMs wall = 0;
  SteadyTime steady;
};

// The earliest wall-clock instant the daemon must look again (the rules
// above); nothing when no timer is set.
std::optional<TimeMs> next_deadline(const DaemonTimers& timers, const WakeState& state,
                                    DaemonNow now);

// How long a runner waits before it tries the lease again: `interval`, or
// kLeaseCheckSlackMs after the end of the lease it found held, if sooner.
DurationMs lease_check_delay(DurationMs interval, std::optional<TimeMs> held_until, TimeMs now);

}  // namespace orrery
