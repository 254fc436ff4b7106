// Suspend detection (docs/daemon.md, "Suspend and clock steps"): the
// boot-time clock counts time the machine spent suspended, the monotonic
// clock does not, so their difference grows exactly by each suspend. When
// it grew, the daemon was not watching: slots that fell due meanwhile are
// missed (docs/scheduling.md), and watching starts again at the wake-up.
//
// Invariant: a difference that grew by less than kSuspendThresholdMs (clock
// reading jitter) is not a suspend.
#pragma once

#include "core/time.h"

namespace orrery {

inline constexpr DurationMs kSuspendThresholdMs = 500;

// One reading of both clocks, in milliseconds.
struct ClockPair {
  std::int64_t boottime_ms = 0;
  std::int64_t monotonic_ms = 0;
};

// The system's clocks now.
ClockPair read_clock_pair();

class SuspendDetector {
 public:
  explicit SuspendDetector(ClockPair start) : offset_(offset_of(start)) {}

  // How long the machine slept since the last reading (0: it did not).
  DurationMs slept(ClockPair now);

 private:
  static std::int64_t offset_of(ClockPair pair) { return pair.boottime_ms - pair.monotonic_ms; }
  std::int64_t offset_;
};

}  // namespace orrery
