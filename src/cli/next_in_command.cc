#include "cli/next_in_command.h"

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/store_access.h"
#include "core/duration.h"
#include "core/limits.h"
#include "core/text.h"
#include "exec/wake.h"
#include "views/document_text.h"

namespace orrery::cli {
namespace {

Error outside_a_run(const std::string& why) {
  return usage_error("run next-in works only inside a running run (ORRERY_RUN_ID " + why + ")");
}

// The running run ORRERY_RUN_ID names.
Result<Run> current_run(Store& store) {
  const char* id = std::getenv("ORRERY_RUN_ID");
  if (id == nullptr || *id == '\0') return outside_a_run("is not set");
  auto run = store.get_run(id);
  if (!run) return run.error();
  if (!run->has_value()) return outside_a_run("names no run: '" + terminal_text(id) + "'");
  if ((*run)->status != RunStatus::kRunning) {
    return outside_a_run("names run " + (*run)->id + ", which is " +
                         run_status_name((*run)->status));
  }
  return **run;
}

// "an --every", "a --cron", "an --at": how the schedule was given.
std::string schedule_option(ScheduleType type) {
  switch (type) {
    case ScheduleType::kInterval:
      return "an --every";
    case ScheduleType::kCron:
      return "a --cron";
    case ScheduleType::kOnce:
      return "an --at";
    case ScheduleType::kDynamic:
      break;
  }
  return "a --dynamic";
}

std::string choice_text(DurationMs chosen, const Schedule& schedule) {
  const DurationMs effective = std::clamp(chosen, schedule.min_ms, schedule.max_ms);
  std::string text = format_duration(effective) + " after this run finishes";
  if (effective != chosen) {
    text += " (" + format_duration(chosen) + " clamped to the loop's " +
            (effective == schedule.min_ms ? "--min " : "--max ") + format_duration(effective) + ")";
  }
  return text;
}

}  // namespace

Result<int> run_next_in_command(const NextInArgs& args, const Context& context) {
  auto delay = parse_duration_option(args.duration, "run next-in", kMaxDynamicDelayMs,
                                     ZeroDuration::kAllowed);
  if (!delay) return delay.error();
  if (const char* id = std::getenv("ORRERY_RUN_ID"); id == nullptr || *id == '\0') {
    return outside_a_run("is not set");  // refused before the data directory is opened
  }
  auto opened = open_store(context);
  if (!opened) return opened.error();
  auto run = current_run(*opened->store);
  if (!run) return run.error();
  auto loop = opened->store->get_loop(run->loop_id);
  if (!loop) return loop.error();
  if (!loop->has_value()) return not_found_error("the loop of run " + run->id + " is gone");
  const Loop& owner = **loop;
  if (owner.schedule.type != ScheduleType::kDynamic) {
    return usage_error("run next-in works only for a --dynamic loop; loop " + owner.name + " has " +
                       schedule_option(owner.schedule.type) + " schedule");
  }
  if (auto stored = opened->store->set_run_next_in(run->id, *delay, context.now); !stored) {
    if (stored.error().code == ErrorCode::kConflict) {
      return outside_a_run("names run " + run->id + ", which has finished");
    }
    return stored.error();
  }
  notify_daemon(opened->home);
  if (context.globals.json) {
    const DurationMs effective = std::clamp(*delay, owner.schedule.min_ms, owner.schedule.max_ms);
    *context.out << json_text({{"run_id", run->id},
                               {"loop_id", owner.id},
                               {"next_in_ms", *delay},
                               {"effective_ms", effective}})
                 << '\n';
  } else {
    *context.out << "the next slot of loop " << terminal_text(owner.name) << ": "
                 << choice_text(*delay, owner.schedule) << '\n';
  }
  return 0;
}

}  // namespace orrery::cli
