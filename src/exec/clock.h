// The wall clock: the current instant as orrery stores it (TimeMs,
// milliseconds since the Unix epoch). Leases, start and finish times are
// wall-clock instants, so every component reads them through this one
// function.
#pragma once

#include "core/time.h"

namespace orrery {

TimeMs wall_clock_now();

}  // namespace orrery
