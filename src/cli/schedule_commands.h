// `orrery cron explain` and `orrery schedule preview`: validate a schedule and
// show its next fire times, without touching any store.
#pragma once

#include <string>

#include "cli/command.h"

namespace orrery::cli {

struct CronExplainArgs {
  std::string expression;
  int count = 5;
  std::string from;  // TIME; empty = now
  std::string tz;    // empty = the machine's zone
};

struct SchedulePreviewArgs {
  std::string cron;
  std::string every;
  std::string at;
  int count = 5;
  std::string from;
  std::string tz;
};

Result<int> cron_explain(const CronExplainArgs& args, const Context& context);
Result<int> schedule_preview(const SchedulePreviewArgs& args, const Context& context);

}  // namespace orrery::cli
