// A Clock the test moves (exec/clock.h): the wall and the steady clock stand
// still until advanced, and advance together; the wall clock alone can be
// set (a step, as NTP or `date -s` would make).
#pragma once

#include "exec/clock.h"

namespace orrery::testing {

class FakeClock final : public Clock {
 public:
  explicit FakeClock(TimeMs wall) : wall_(wall) {}

  TimeMs wall_now() const override { return wall_; }
  Steady::time_point steady_now() const override { return steady_; }

  void advance(DurationMs by) {
    if (by <= 0) return;
    wall_ += by;
    steady_ += std::chrono::milliseconds(by);
  }
  // Moves both clocks to the wall-clock instant `to`, if it is later.
  void advance_to(TimeMs to) { advance(to - wall_); }
  void set_wall(TimeMs to) { wall_ = to; }

 private:
  TimeMs wall_;
  Steady::time_point steady_{std::chrono::hours(1000)};
};

}  // namespace orrery::testing
