// A plain-language description of a cron expression, for `cron explain`:
// "at 09:00 on Monday through Friday", "every 5 minutes".
#pragma once

#include <string>

#include "core/cron_fields.h"

namespace orrery {

std::string describe_cron(const CronFields& cron);

}  // namespace orrery
