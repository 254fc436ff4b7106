// Clock: the seam for time (docs/architecture.md, "Seams"). The wall clock
// is the instant orrery stores (TimeMs, milliseconds since the Unix epoch):
// leases, start and finish times; the steady clock measures intervals
// (heartbeats, backoffs, grace periods) that a step of the wall clock must
// not stretch or shrink. Components that decide when to act take a Clock,
// so that tests drive them with a fake one and never sleep.
#pragma once

#include <chrono>

#include "core/time.h"

namespace orrery {

class Clock {
 public:
  using Steady = std::chrono::steady_clock;
  virtual ~Clock() = default;
  virtual TimeMs wall_now() const = 0;
  virtual Steady::time_point steady_now() const = 0;
};

// The machine's clocks.
Clock& real_clock();

// real_clock().wall_now(), for code that is not handed a Clock.
TimeMs wall_clock_now();

}  // namespace orrery
