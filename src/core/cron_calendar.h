// Calendar search for cron: the matching wall-clock minutes of CronFields,
// found field by field (month, then day, then hour, then minute), never
// minute by minute. Wall minutes count minutes since 1970-01-01 00:00 on the
// wall clock, with no time zone: zones are the caller's business (cron.h).
//
// Invariant: the cost of a search grows with the number of months it crosses,
// not with the number of minutes.
#pragma once

#include <cstdint>
#include <optional>

#include "core/cron_fields.h"

namespace orrery {

using WallMinute = std::int64_t;

// The first matching minute m with from <= m < until.
std::optional<WallMinute> first_match(const CronFields& cron, WallMinute from, WallMinute until);

// The last matching minute m with floor <= m <= from.
std::optional<WallMinute> last_match(const CronFields& cron, WallMinute from, WallMinute floor);

}  // namespace orrery
