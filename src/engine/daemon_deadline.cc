#include "engine/daemon_deadline.h"

#include <algorithm>

namespace orrery {
namespace {

// The earliest of the instants considered.
class Earliest {
 public:
  void consider(std::optional<TimeMs> time) {
    if (time && (!earliest_ || *time < *earliest_)) earliest_ = time;
  }
  std::optional<TimeMs> get() const { return earliest_; }

 private:
  std::optional<TimeMs> earliest_;
};

}  // namespace

std::optional<TimeMs> next_deadline(const DaemonTimers& timers, const WakeState& state,
                                    DaemonNow now) {
  if (state.more) return now.wall;
  // A steady-clock timer as a wall-clock instant; one already past is now.
  const auto at = [&](SteadyTime when) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(when - now.steady);
    return add_saturating(now.wall, std::max<DurationMs>(0, left.count()));
  };
  Earliest earliest;
  earliest.consider(at(timers.heartbeat));
  if (timers.watchdog) earliest.consider(at(*timers.watchdog));
  for (const PendingKill& kill : timers.kills) earliest.consider(at(kill.at));
  if (state.claim_due) earliest.consider(timers.claim_retry ? at(*timers.claim_retry) : now.wall);
  if (!state.scheduling) {
    earliest.consider(at(timers.lease_check));
    return earliest.get();
  }
  if (timers.tick_retry) {
    earliest.consider(at(*timers.tick_retry));
    return earliest.get();  // the store failed: the wake times are stale
  }
  if (!state.once) {
    earliest.consider(state.wake.next_due);
    earliest.consider(state.wake.cooldown_end);
    earliest.consider(state.wake.item_retry);
    if (state.wake.lease_expiry) {
      earliest.consider(std::max(*state.wake.lease_expiry, now.wall + kLeaseRecheckMs));
    }
  }
  return earliest.get();
}

DurationMs lease_check_delay(DurationMs interval, std::optional<TimeMs> held_until, TimeMs now) {
  if (!held_until) return interval;
  const DurationMs left = *held_until - now + kLeaseCheckSlackMs;
  return left < interval ? std::max<DurationMs>(left, 0) : interval;
}

}  // namespace orrery
