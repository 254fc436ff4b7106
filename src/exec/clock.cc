#include "exec/clock.h"

namespace orrery {
namespace {

class RealClock final : public Clock {
 public:
  TimeMs wall_now() const override { return wall_clock_now(); }
  Steady::time_point steady_now() const override { return Steady::now(); }
};

}  // namespace

Clock& real_clock() {
  static RealClock clock;
  return clock;
}

TimeMs wall_clock_now() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace orrery
