// Tick planning (docs/scheduling.md, "The daemon's tick"): what one loop
// does in one tick of the daemon — which slots are claimed now, which are
// held as queued rows, which are recorded skipped, which running runs are
// stopped (overlap `replace`), and the schedule state the loop is left in.
// Pure: the loop as read, its running and queued runs, the capacity left
// and its account's cooldown are inputs.
//
// Rules, in order:
// 1. A loop that is not active or is archived plans nothing.
// 2. A loop whose account cools down past `now` waits (kCooldown): nothing
//    is planned, its slots stay due and are planned when the cooldown ends,
//    without using an attempt.
// 3. With no capacity left it waits (kCapacity): its slots stay due, neither
//    skipped nor lost, and start as capacity frees.
// 4. Queued rows start first, oldest slot first: one when nothing of the
//    loop runs (any number, within capacity, with overlap `allow`); rows
//    left waiting make the plan's wait kBusy (kCapacity with `allow`).
// 5. A pending retry slot that is due runs before new slots, alone; while
//    another run of the loop runs (overlap other than `allow`) it waits
//    (kBusy), and without capacity left (after rule 4) it waits (kCapacity).
//    Once the series' next slot is due too, plan_slots decides by the
//    catch-up policy (core/slot_plan.h): under `latest` and `none` the retry
//    is skipped and the due slots follow rule 6, so no retry holds a loop
//    past its next slot.
// 6. Due slots are planned by plan_slots (core/slot_plan.h): missed ones by
//    the catch-up policy, recorded skipped (`missed`) or counted. Of the
//    slots to run, the missed ones (catch-up backlog) run one after another:
//    the first is claimed when the loop is idle, the rest are queued
//    (`allow`: claimed within capacity, the rest queued). Slots that fell
//    due while watched follow the overlap policy against whatever of the
//    loop runs (including what this plan starts):
//      skip     the first runs when idle, every other one is skipped (`overlap`);
//      queue    the first runs when idle, one more is held as a queued row
//               when none is held yet, the rest are skipped (`overlap`);
//      allow    all are claimed within capacity, the rest queued while
//               the loop holds fewer than kMaxBacklog queued rows; the
//               rest are skipped (`backlog`), so a loop that falls due
//               faster than it gets room keeps a bounded backlog;
//      replace  the newest runs, older ones are skipped (`overlap`), and
//               every running run of the loop is stopped; when this plan
//               already claimed a slot (a queued row or the backlog) the
//               newest is queued behind it instead.
//    "Idle" counts this plan's claims; "held" counts the loop's queued rows
//    and this plan's. Claims never exceed the capacity; a claim that does
//    not fit is queued.
// 7. The state left: next_run_at is plan_slots' next slot, except for
//    fixed-delay, dynamic and once loops that claimed or queued a slot
//    (empty: the next slot is set when the run is settled,
//    core/run_settlement.h); a consumed retry clears retry_scheduled_for
//    and series_resume_at, and the series resumes at series_resume_at;
//    missed_count grows by the plan's missed slots. A once loop whose slot
//    was skipped (nothing claimed or queued) becomes completed; a dynamic
//    loop whose slot was skipped gets its next slot as if a run had
//    finished at `now` (now + min).
// A loop that waits (rules 2, 3, a waiting retry) keeps its state.
#pragma once

#include <string>
#include <vector>

#include "core/loop.h"
#include "core/result.h"
#include "core/run.h"
#include "core/schedule.h"
#include "core/slot_plan.h"

namespace orrery {

// The most queued runs an `allow` loop holds waiting for room
// (docs/scheduling.md, "Overlap").
inline constexpr int kMaxBacklog = 10;

// What of a loop is in flight.
struct LoopActivity {
  std::vector<Run> running;  // its running runs
  std::vector<Run> queued;   // its queued rows, oldest slot first
};

struct TickInput {
  TimeMs now = 0;
  TimeMs watching_since = 0;             // see core/slot_plan.h
  int capacity = 0;                      // runs this loop may still start in this tick
  std::optional<TimeMs> cooldown_until;  // the loop's account cools down until then
};

enum class TickWait { kNone, kCooldown, kCapacity, kBusy };

struct LoopTickPlan {
  TickWait wait = TickWait::kNone;   // why something due did not start (rules 2-5)
  std::vector<TimeMs> claim;         // slots to claim now (queued rows, a retry, new slots)
  std::vector<TimeMs> queue;         // new slots to hold as queued rows
  std::vector<SkippedSlot> skipped;  // slots to record skipped, oldest first
  std::vector<std::string> replace;  // ids of running runs to stop (overlap `replace`)
  ScheduleState state;               // the loop's schedule state after the plan
  // Whether there is anything to write: a claim, a queued or skipped row,
  // or a state that differs from the loop's.
  bool changes_anything(const Loop& loop) const;
};

Result<LoopTickPlan> plan_loop_tick(const Loop& loop, const SlotSeries& series,
                                    const LoopActivity& activity, const TickInput& input);

}  // namespace orrery
