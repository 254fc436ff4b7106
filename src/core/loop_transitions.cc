#include "core/loop_transitions.h"

#include "core/text.h"

namespace orrery {
namespace {

Error not_allowed(const Loop& loop, const char* action) {
  return conflict_error("cannot " + std::string(action) + " loop " + loop.name + ": it is " +
                        (loop.archived ? "archived" : loop_status_name(loop.status)));
}

// The next slot strictly after now; nothing is caught up.
Status reschedule(Loop& loop, TimeMs now) {
  auto series = SlotSeries::compile(loop.schedule, loop.id);
  if (!series) return series.error();
  if (loop.schedule.type == ScheduleType::kOnce) {
    // A once slot keeps its time; if it passed while paused it runs now. A
    // once loop without a slot left (its run was claimed) gets none: its
    // single run must not happen twice.
    if (loop.next_run_at) loop.next_run_at = std::max(*loop.next_run_at, now);
    return Ok{};
  }
  auto next = series->initial(now);
  if (!next) return next.error();
  loop.next_run_at = *next;
  loop.retry_scheduled_for.reset();
  loop.series_resume_at.reset();
  return Ok{};
}

}  // namespace

Result<Loop> pause_loop(Loop loop, TimeMs now) {
  if (loop.archived || loop.status != LoopStatus::kActive) return not_allowed(loop, "pause");
  loop.status = LoopStatus::kPaused;
  loop.paused_by_goal.clear();
  loop.updated_at = now;
  return loop;
}

Result<Loop> resume_loop(Loop loop, TimeMs now) {
  if (loop.archived || loop.status != LoopStatus::kPaused) return not_allowed(loop, "resume");
  if (auto rescheduled = reschedule(loop, now); !rescheduled) return rescheduled.error();
  loop.status = LoopStatus::kActive;
  loop.paused_by_goal.clear();
  loop.updated_at = now;
  return loop;
}

Result<Loop> archive_loop(Loop loop, TimeMs now) {
  if (loop.archived) return not_allowed(loop, "archive");
  loop.archived_from_status = loop.status;
  loop.archived = true;
  if (loop.status == LoopStatus::kActive) loop.status = LoopStatus::kPaused;
  loop.updated_at = now;
  return loop;
}

Result<Loop> unarchive_loop(Loop loop, TimeMs now) {
  if (!loop.archived)
    return conflict_error("cannot unarchive loop " + loop.name + ": it is not archived");
  loop.archived = false;
  loop.status = loop.archived_from_status.value_or(LoopStatus::kPaused);
  loop.archived_from_status.reset();
  if (loop.status == LoopStatus::kActive) {
    if (auto rescheduled = reschedule(loop, now); !rescheduled) return rescheduled.error();
  }
  loop.updated_at = now;
  return loop;
}

Result<Loop> rename_loop(Loop loop, const std::string& name, TimeMs now) {
  if (auto valid = check_name(name, "loop name"); !valid) return valid.error();
  loop.name = name;
  loop.updated_at = now;
  return loop;
}

}  // namespace orrery
