#include "core/tick_plan.h"

#include <algorithm>

namespace orrery {
namespace {

// Loops whose next slot is set when their run is settled, not when it is planned.
bool waits_for_settlement(const Schedule& schedule) {
  return schedule.type == ScheduleType::kOnce || schedule.type == ScheduleType::kDynamic ||
         (schedule.type == ScheduleType::kInterval &&
          schedule.anchor == IntervalAnchor::kFixedDelay);
}

// The plan under construction, with what of the loop runs or waits as it grows.
class TickBuilder {
 public:
  TickBuilder(const Loop& loop, const LoopActivity& activity, int capacity)
      : capacity_(capacity),
        running_(int(activity.running.size())),
        held_(int(activity.queued.size())) {
    plan_.state = schedule_state(loop);
  }

  // Nothing of the loop runs.
  bool idle() const { return running_ == 0; }
  // Nothing of the loop runs or waits as a queued row.
  bool free() const { return running_ == 0 && held_ == 0; }
  bool fits() const { return capacity_ > 0; }
  int held() const { return held_; }
  bool claimed_any() const { return !plan_.claim.empty(); }

  void claim(TimeMs slot) {
    plan_.claim.push_back(slot);
    --capacity_;
    ++running_;
  }
  void claim_queued(TimeMs slot) {
    claim(slot);
    --held_;
  }
  void hold(TimeMs slot) {
    plan_.queue.push_back(slot);
    ++held_;
  }
  // Claims the slot, or holds it as a queued row when it does not fit.
  void start(TimeMs slot) {
    if (fits()) {
      claim(slot);
    } else {
      hold(slot);
    }
  }
  void skip(TimeMs slot, SkipReason reason) { plan_.skipped.push_back({slot, reason}); }

  LoopTickPlan& plan() { return plan_; }

  LoopTickPlan finish() {
    std::sort(plan_.skipped.begin(), plan_.skipped.end(),
              [](const SkippedSlot& a, const SkippedSlot& b) { return a.slot < b.slot; });
    return std::move(plan_);
  }

 private:
  int capacity_;
  int running_;  // runs of the loop running, including this plan's claims
  int held_;     // queued rows of the loop, including this plan's
  LoopTickPlan plan_;
};

// Rule 4: queued rows start first, oldest slot first.
void start_queued_rows(const Loop& loop, const LoopActivity& activity, TickBuilder& builder) {
  std::vector<TimeMs> slots;
  for (const Run& run : activity.queued) slots.push_back(run.scheduled_for);
  std::sort(slots.begin(), slots.end());
  const bool allow = loop.overlap == OverlapPolicy::kAllow;
  for (TimeMs slot : slots) {
    if (!builder.fits() || !(allow || builder.idle())) {
      builder.plan().wait = allow ? TickWait::kCapacity : TickWait::kBusy;
      return;
    }
    builder.claim_queued(slot);
  }
}

// Rule 6, slots that fell due while watched, under the overlap policy.
void start_watched(const Loop& loop, const LoopActivity& activity, const std::vector<TimeMs>& slots,
                   TickBuilder& builder) {
  if (slots.empty()) return;
  switch (loop.overlap) {
    case OverlapPolicy::kSkip:
      for (TimeMs slot : slots) {
        if (builder.free()) {
          builder.start(slot);
        } else {
          builder.skip(slot, SkipReason::kOverlap);
        }
      }
      return;
    case OverlapPolicy::kQueue:
      for (TimeMs slot : slots) {
        if (builder.free()) {
          builder.start(slot);
        } else if (builder.held() == 0) {
          builder.hold(slot);
        } else {
          builder.skip(slot, SkipReason::kOverlap);
        }
      }
      return;
    case OverlapPolicy::kAllow:
      for (TimeMs slot : slots) {
        if (builder.fits() || builder.held() < kMaxBacklog) {
          builder.start(slot);
        } else {
          builder.skip(slot, SkipReason::kBacklog);
        }
      }
      return;
    case OverlapPolicy::kReplace:
      for (size_t i = 0; i + 1 < slots.size(); ++i) builder.skip(slots[i], SkipReason::kOverlap);
      // The newest replaces what ran before this tick; it waits for what
      // this plan itself started.
      if (builder.claimed_any()) {
        builder.hold(slots.back());
        return;
      }
      builder.start(slots.back());
      for (const Run& run : activity.running) builder.plan().replace.push_back(run.id);
      return;
  }
}

// Rule 6, the slots plan_slots chose to run: the catch-up backlog one after
// another, then the watched ones under the overlap policy. Returns whether
// any slot was claimed or queued.
bool start_new_slots(const Loop& loop, const LoopActivity& activity, const SlotPlan& slots,
                     TimeMs watching_since, TickBuilder& builder) {
  const size_t claimed = builder.plan().claim.size();
  const size_t queued = builder.plan().queue.size();
  std::vector<TimeMs> watched;
  for (TimeMs slot : slots.run) {
    if (slot >= watching_since) {
      watched.push_back(slot);
    } else if (loop.overlap == OverlapPolicy::kAllow) {
      builder.start(slot);
    } else if (builder.idle() && builder.fits()) {
      builder.claim(slot);
    } else {
      builder.hold(slot);
    }
  }
  start_watched(loop, activity, watched, builder);
  for (const SkippedSlot& skipped : slots.skipped) builder.skip(skipped.slot, skipped.reason);
  return builder.plan().claim.size() > claimed || builder.plan().queue.size() > queued;
}

// Rule 7: the schedule state after the slots were planned.
Status leave_state(const Loop& loop, const SlotSeries& series, const SlotPlan& slots, bool started,
                   TimeMs now, ScheduleState& state) {
  state.missed_count = loop.missed_count + slots.missed_count_delta();
  state.retry_scheduled_for.reset();
  state.series_resume_at.reset();
  state.next_run_at = slots.next_slot;
  if (started && waits_for_settlement(loop.schedule)) {
    state.next_run_at.reset();
    return Ok{};
  }
  if (started || slots.next_slot) return Ok{};
  // Nothing started and the series has no further slot: a once loop is done,
  // a dynamic loop chooses its next slot as if its run had finished now.
  if (loop.schedule.type == ScheduleType::kOnce) {
    state.status = LoopStatus::kCompleted;
  } else if (loop.schedule.type == ScheduleType::kDynamic) {
    auto next = series.after_finish(now, now);
    if (!next) return next.error();
    state.next_run_at = *next;
  }
  return Ok{};
}

}  // namespace

bool LoopTickPlan::changes_anything(const Loop& loop) const {
  return !claim.empty() || !queue.empty() || !skipped.empty() || state != schedule_state(loop);
}

Result<LoopTickPlan> plan_loop_tick(const Loop& loop, const SlotSeries& series,
                                    const LoopActivity& activity, const TickInput& input) {
  TickBuilder builder(loop, activity, input.capacity);
  // Rule 1, and nothing due: nothing to plan.
  if (loop.status != LoopStatus::kActive || loop.archived) return builder.finish();
  const bool slot_due = loop.next_run_at && *loop.next_run_at <= input.now;
  if (!slot_due && activity.queued.empty()) return builder.finish();
  // Rules 2 and 3: wait, with everything due left as it is.
  if (input.cooldown_until && *input.cooldown_until > input.now) {
    builder.plan().wait = TickWait::kCooldown;
    return builder.finish();
  }
  if (input.capacity <= 0) {
    builder.plan().wait = TickWait::kCapacity;
    return builder.finish();
  }
  start_queued_rows(loop, activity, builder);
  if (!slot_due) return builder.finish();

  PlanInput plan_input;
  plan_input.next_run_at = *loop.next_run_at;
  plan_input.retry_slot = loop.retry_scheduled_for;
  plan_input.resume_at = loop.series_resume_at;
  plan_input.now = input.now;
  plan_input.watching_since = input.watching_since;
  plan_input.expires_at = loop.expires_at;
  auto slots = plan_slots(series, loop.catch_up, plan_input);
  if (!slots) return slots.error();

  bool started = false;
  if (slots->run_is_retry) {
    // Rule 5: the retry runs alone, when it can.
    const bool busy = !builder.idle() && loop.overlap != OverlapPolicy::kAllow;
    if (busy || !builder.fits()) {
      builder.plan().wait = busy ? TickWait::kBusy : TickWait::kCapacity;
      return builder.finish();
    }
    builder.claim(slots->run.front());
    started = true;
  } else {
    started = start_new_slots(loop, activity, *slots, input.watching_since, builder);
  }
  if (auto left = leave_state(loop, series, *slots, started, input.now, builder.plan().state);
      !left) {
    return left.error();
  }
  return builder.finish();
}

}  // namespace orrery
