// Settings read from the environment (docs/cli.md, "Environment"): a
// number of milliseconds within a range, or a default when unset.
#pragma once

#include <cstdint>

#include "core/result.h"

namespace orrery::cli {

// The variable `name` as a whole number of milliseconds from `min` to
// `max`; `fallback` when it is unset or empty; a usage error naming the
// variable, its value and the range otherwise.
Result<std::int64_t> milliseconds_from_env(const char* name, std::int64_t min, std::int64_t max,
                                           std::int64_t fallback);

}  // namespace orrery::cli
