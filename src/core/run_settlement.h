// Settling a finished run (docs/scheduling.md, "After a run finishes"): the
// schedule state a loop is left in once one of its planned runs reached a
// terminal state. Pure.
//
// Rules, for an active, unarchived loop:
// - a retryable slot (core/retry_policy.h) is retried: retry_scheduled_for
//   is the run's slot, series_resume_at the loop's next_run_at (where the
//   series had got to) and next_run_at when the retry is due — the run's
//   finish plus the retry delay; a free re-attempt (abandoned: not the
//   target's fault) at the finish; a usage-limited run at the end of its
//   account's cooldown — but never later than series_resume_at, where the
//   catch-up policy decides between the retry and the slots due
//   (core/slot_plan.h) — unless the loop already holds another pending
//   retry, in which case the slot stays as it finished;
// - otherwise a fixed-delay or dynamic loop waiting for this run
//   (next_run_at empty) gets its next slot from the finish
//   (SlotSeries::after_finish, with the run's own next-in choice);
// - otherwise a once loop whose slot this was becomes completed, with no
//   next slot;
// - anything else leaves the state as it is (fixed-rate and cron loops
//   advanced when the slot was planned).
// A paused, archived, expired or completed loop keeps its state, except that
// a paused or archived fixed-delay or dynamic loop waiting for the run gets
// its next slot and a once loop paused while its slot ran completes
// (resuming it would give it nothing to run). An expired or completed loop
// (also one archived from those) never gets a next slot: it will not run
// again.
// An ordinary retry is due at the run's finish (or `now` when it has none)
// plus retry_delay(base, backoff, run.attempt, random). A run that is running or
// queued has nothing to settle: an internal error.
#pragma once

#include <cstdint>
#include <optional>

#include "core/loop.h"
#include "core/result.h"
#include "core/run.h"
#include "core/schedule.h"

namespace orrery {

struct SettleInput {
  TimeMs now = 0;
  std::optional<TimeMs> cooldown_until;  // the loop's account cools down until then
  std::uint64_t random = 0;              // for the exponential backoff's jitter
};

Result<ScheduleState> settle_finished_run(const Loop& loop, const SlotSeries& series,
                                          const Run& run, const SettleInput& input);

}  // namespace orrery
