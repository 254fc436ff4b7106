// A new time-ordered id (core/ids.h) with randomness from the system.
#pragma once

#include <string>

#include "core/time.h"

namespace orrery {

std::string fresh_id(TimeMs now);

}  // namespace orrery
