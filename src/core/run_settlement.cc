#include "core/run_settlement.h"

#include <algorithm>

#include "core/retry_policy.h"

namespace orrery {
namespace {

bool counts_from_finish(const Schedule& schedule) {
  return schedule.type == ScheduleType::kDynamic ||
         (schedule.type == ScheduleType::kInterval &&
          schedule.anchor == IntervalAnchor::kFixedDelay);
}

// When the retry of `run`, which finished at `finish`, falls due: a free
// re-attempt (not the target's fault) at once, or when the account's
// cooldown ends; an ordinary one after the retry delay.
TimeMs retry_due(const Loop& loop, const Run& run, Reattempt kind, TimeMs finish,
                 const SettleInput& input) {
  if (run.usage_limited) return std::max(finish, input.cooldown_until.value_or(finish));
  if (kind == Reattempt::kFree) return finish;
  const DurationMs delay =
      retry_delay(loop.retry_delay_ms, loop.retry_backoff, run.attempt, input.random);
  return add_saturating(finish, delay);
}

// Whether the loop will not run again: expired or completed (also while
// archived, which remembers the status it had).
bool has_ended(const Loop& loop) {
  const LoopStatus status =
      loop.archived ? loop.archived_from_status.value_or(loop.status) : loop.status;
  return status == LoopStatus::kExpired || status == LoopStatus::kCompleted;
}

// Whether the loop holds a pending retry of a slot other than the run's.
bool holds_other_retry(const Loop& loop, const Run& run) {
  return loop.retry_scheduled_for && *loop.retry_scheduled_for != run.scheduled_for;
}

}  // namespace

Result<ScheduleState> settle_finished_run(const Loop& loop, const SlotSeries& series,
                                          const Run& run, const SettleInput& input) {
  if (!is_terminal(run.status)) {
    return internal_error(std::string("run ") + run.id + " is " + run_status_name(run.status) +
                          ", not finished: there is nothing to settle");
  }
  ScheduleState state = schedule_state(loop);
  const TimeMs finish = run.finished_at.value_or(input.now);
  const bool live = loop.status == LoopStatus::kActive && !loop.archived;

  const Reattempt kind = reattempt_kind(run, loop.max_attempts);
  if (live && kind != Reattempt::kNone && !holds_other_retry(loop, run)) {
    state.retry_scheduled_for = run.scheduled_for;
    // The series keeps the position it reached: after the retry, planning
    // resumes there, not at the slot after the retried one.
    state.series_resume_at = loop.retry_scheduled_for ? loop.series_resume_at : loop.next_run_at;
    // Never held past the series' next slot: there the catch-up policy
    // decides between the retry and the slots due (core/slot_plan.h).
    state.next_run_at = retry_due(loop, run, kind, finish, input);
    if (state.series_resume_at && *state.series_resume_at < *state.next_run_at) {
      state.next_run_at = *state.series_resume_at;
    }
    return state;
  }
  if (counts_from_finish(loop.schedule) && !loop.next_run_at && !has_ended(loop)) {
    auto next = series.after_finish(run.scheduled_for, finish, run.next_in_ms);
    if (!next) return next.error();
    state.next_run_at = *next;
    return state;
  }
  // A once loop paused while its slot ran completes all the same: resuming
  // it would give it no slot to run.
  const bool pausable = loop.status == LoopStatus::kActive || loop.status == LoopStatus::kPaused;
  if (pausable && !loop.archived && loop.schedule.type == ScheduleType::kOnce) {
    auto slot = series.initial(run.scheduled_for);
    if (!slot) return slot.error();
    if (*slot == run.scheduled_for) {
      state.status = LoopStatus::kCompleted;
      state.next_run_at.reset();
      state.retry_scheduled_for.reset();
    }
  }
  return state;
}

}  // namespace orrery
