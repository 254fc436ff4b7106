#include "exec/clock.h"

#include <chrono>

namespace orrery {

TimeMs wall_clock_now() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace orrery
