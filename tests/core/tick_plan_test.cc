#include "core/tick_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "support/time_literals.h"

namespace orrery {
namespace {

using testing::at;
using testing::iso;
using Strings = std::vector<std::string>;

constexpr DurationMs kMinute = 60'000;
constexpr OverlapPolicy kAllPolicies[] = {OverlapPolicy::kSkip, OverlapPolicy::kQueue,
                                          OverlapPolicy::kAllow, OverlapPolicy::kReplace};

// Times of day on 2026-01-01.
TimeMs t(const std::string& hh_mm) { return at("2026-01-01T" + hh_mm + ":00Z"); }

// An active loop every `period` whose next slot is `next`.
Loop every(DurationMs period, const std::string& next,
           OverlapPolicy overlap = OverlapPolicy::kSkip) {
  Loop loop;
  loop.id = "0123456789abcdef0123456789abcdef";
  loop.schedule.type = ScheduleType::kInterval;
  loop.schedule.every_ms = period;
  loop.next_run_at = t(next);
  loop.overlap = overlap;
  return loop;
}

Loop with_catch_up(Loop loop, CatchUpMode mode, int limit = kDefaultCatchUpLimit) {
  loop.catch_up.mode = mode;
  loop.catch_up.limit = limit;
  return loop;
}

SlotSeries series_of(const Loop& loop) {
  auto series = SlotSeries::compile(loop.schedule, loop.id);
  EXPECT_TRUE(series.ok()) << (series ? "" : series.error().message);
  return *series;
}

Run run_at(const std::string& id, const std::string& slot, RunStatus status) {
  orrery::Run run;
  run.id = id;
  run.scheduled_for = t(slot);
  run.status = status;
  return run;
}

LoopActivity running(int count) {
  LoopActivity activity;
  for (int i = 0; i < count; ++i) {
    activity.running.push_back(run_at("run" + std::to_string(i), "09:00", RunStatus::kRunning));
  }
  return activity;
}

LoopActivity queued(const Strings& slots, int running_count = 0) {
  LoopActivity activity = running(running_count);
  for (const std::string& slot : slots) {
    activity.queued.push_back(run_at("queued " + slot, slot, RunStatus::kQueued));
  }
  return activity;
}

// A tick at `now`, watched since 09:00 (nothing missed) unless said otherwise.
TickInput tick(const std::string& now, int capacity = 64, const std::string& watching = "09:00") {
  TickInput input;
  input.now = t(now);
  input.watching_since = t(watching);
  input.capacity = capacity;
  return input;
}

LoopTickPlan plan(const Loop& loop, const LoopActivity& activity, const TickInput& input) {
  auto result = plan_loop_tick(loop, series_of(loop), activity, input);
  EXPECT_TRUE(result.ok()) << (result ? "" : result.error().message);
  return result ? *result : LoopTickPlan{};
}

Strings times(const std::vector<TimeMs>& slots) {
  Strings out;
  for (TimeMs slot : slots) out.push_back(iso(slot).substr(11, 5));
  return out;
}

Strings skipped(const LoopTickPlan& p) {
  Strings out;
  for (const SkippedSlot& s : p.skipped) {
    out.push_back(iso(s.slot).substr(11, 5) + " " + skip_reason_name(s.reason));
  }
  return out;
}

void expect_nothing_planned(const LoopTickPlan& p, const Loop& loop, const std::string& context) {
  EXPECT_TRUE(p.claim.empty()) << context;
  EXPECT_TRUE(p.queue.empty()) << context;
  EXPECT_TRUE(p.skipped.empty()) << context;
  EXPECT_TRUE(p.replace.empty()) << context;
  EXPECT_EQ(p.state, schedule_state(loop)) << context;
  EXPECT_FALSE(p.changes_anything(loop)) << context;
}

// --- Rule 1 and nothing due ---

TEST(TickPlan, ALoopThatIsNotActiveOrIsArchivedPlansNothing) {
  for (LoopStatus status : {LoopStatus::kPaused, LoopStatus::kExpired, LoopStatus::kCompleted}) {
    Loop loop = every(10 * kMinute, "10:00");
    loop.status = status;
    const LoopTickPlan p = plan(loop, queued({"09:50"}), tick("10:30"));
    expect_nothing_planned(p, loop, loop_status_name(status));
    EXPECT_EQ(p.wait, TickWait::kNone);
  }
  Loop archived = every(10 * kMinute, "10:00");
  archived.archived = true;
  expect_nothing_planned(plan(archived, {}, tick("10:30")), archived, "archived");
}

TEST(TickPlan, ALoopWithNothingDuePlansNothingAndDoesNotWait) {
  for (OverlapPolicy overlap : kAllPolicies) {
    const Loop future = every(10 * kMinute, "10:00", overlap);
    for (const char* now : {"09:00", "09:59"}) {
      const LoopTickPlan p = plan(future, running(1), tick(now));
      expect_nothing_planned(p, future, overlap_name(overlap));
      EXPECT_EQ(p.wait, TickWait::kNone);
    }
    Loop waiting = future;  // a fixed-delay loop waiting for its run's settlement
    waiting.next_run_at.reset();
    expect_nothing_planned(plan(waiting, running(1), tick("10:30")), waiting, "no next slot");
  }
}

// --- Rules 2 and 3: waits leave everything due ---

TEST(TickPlan, ACoolingDownAccountMakesTheLoopWaitWithItsSlotsStillDue) {
  for (OverlapPolicy overlap : kAllPolicies) {
    for (const char* until : {"10:31", "11:00", "23:59"}) {
      const Loop loop = every(10 * kMinute, "10:00", overlap);
      TickInput input = tick("10:30");
      input.cooldown_until = t(until);
      const LoopTickPlan p = plan(loop, queued({"09:50"}), input);
      expect_nothing_planned(p, loop, until);
      EXPECT_EQ(p.wait, TickWait::kCooldown);
    }
  }
}

TEST(TickPlan, ACooldownThatHasEndedNoLongerHoldsTheLoop) {
  for (const char* until : {"09:00", "10:30"}) {
    const Loop loop = every(10 * kMinute, "10:30");
    TickInput input = tick("10:30");
    input.cooldown_until = t(until);
    const LoopTickPlan p = plan(loop, {}, input);
    EXPECT_EQ(times(p.claim), Strings{"10:30"}) << until;
    EXPECT_EQ(p.wait, TickWait::kNone);
  }
}

TEST(TickPlan, WithoutCapacityTheLoopWaitsNeitherSkippingNorLosingSlots) {
  for (OverlapPolicy overlap : kAllPolicies) {
    for (int capacity : {0, -1}) {
      for (int busy : {0, 1}) {
        const Loop loop = every(10 * kMinute, "10:00", overlap);
        const LoopTickPlan p = plan(loop, running(busy), tick("10:35", capacity));
        expect_nothing_planned(p, loop, overlap_name(overlap));
        EXPECT_EQ(p.wait, TickWait::kCapacity);
      }
    }
  }
}

// --- Rule 6: overlap of slots that fell due while watched ---

TEST(TickPlan, ADueSlotIsClaimedAndTheSeriesMovesOn) {
  for (OverlapPolicy overlap : kAllPolicies) {
    const Loop loop = every(10 * kMinute, "10:00", overlap);
    const LoopTickPlan p = plan(loop, {}, tick("10:05"));
    EXPECT_EQ(times(p.claim), Strings{"10:00"}) << overlap_name(overlap);
    EXPECT_TRUE(p.queue.empty());
    EXPECT_TRUE(p.skipped.empty());
    EXPECT_EQ(p.state.next_run_at, t("10:10"));
    EXPECT_EQ(p.state.missed_count, 0);
    EXPECT_TRUE(p.changes_anything(loop));
  }
}

TEST(TickPlan, SkipRunsTheFirstSlotWhenIdleAndSkipsTheRest) {
  const Loop loop = every(10 * kMinute, "10:00", OverlapPolicy::kSkip);
  const LoopTickPlan idle = plan(loop, {}, tick("10:25"));
  EXPECT_EQ(times(idle.claim), Strings{"10:00"});
  EXPECT_EQ(skipped(idle), (Strings{"10:10 overlap", "10:20 overlap"}));
  EXPECT_EQ(idle.state.next_run_at, t("10:30"));
  EXPECT_EQ(idle.state.missed_count, 0);  // overlap is not missed
  for (int busy : {1, 2}) {
    const LoopTickPlan p = plan(loop, running(busy), tick("10:25"));
    EXPECT_TRUE(p.claim.empty());
    EXPECT_TRUE(p.queue.empty());
    EXPECT_EQ(skipped(p), (Strings{"10:00 overlap", "10:10 overlap", "10:20 overlap"}));
    EXPECT_EQ(p.state.next_run_at, t("10:30"));
  }
}

TEST(TickPlan, QueueRunsTheFirstHoldsOneMoreAndSkipsTheRest) {
  const Loop loop = every(10 * kMinute, "10:00", OverlapPolicy::kQueue);
  const LoopTickPlan idle = plan(loop, {}, tick("10:25"));
  EXPECT_EQ(times(idle.claim), Strings{"10:00"});
  EXPECT_EQ(times(idle.queue), Strings{"10:10"});
  EXPECT_EQ(skipped(idle), Strings{"10:20 overlap"});

  const LoopTickPlan busy = plan(loop, running(1), tick("10:25"));
  EXPECT_TRUE(busy.claim.empty());
  EXPECT_EQ(times(busy.queue), Strings{"10:00"});
  EXPECT_EQ(skipped(busy), (Strings{"10:10 overlap", "10:20 overlap"}));

  // One already held: nothing more is held.
  const LoopTickPlan held = plan(loop, queued({"09:50"}, 1), tick("10:05"));
  EXPECT_TRUE(held.claim.empty());
  EXPECT_TRUE(held.queue.empty());
  EXPECT_EQ(skipped(held), Strings{"10:00 overlap"});
  EXPECT_EQ(held.wait, TickWait::kBusy);
}

TEST(TickPlan, AllowClaimsEverySlotWithinCapacityAndQueuesTheRest) {
  const Loop loop = every(10 * kMinute, "10:00", OverlapPolicy::kAllow);
  for (int busy : {0, 1, 3}) {
    const LoopTickPlan p = plan(loop, running(busy), tick("10:25"));
    EXPECT_EQ(times(p.claim), (Strings{"10:00", "10:10", "10:20"})) << busy;
    EXPECT_TRUE(p.queue.empty());
    EXPECT_TRUE(p.skipped.empty());
    EXPECT_TRUE(p.replace.empty());
  }
  for (int capacity : {1, 2}) {
    const LoopTickPlan p = plan(loop, running(1), tick("10:25", capacity));
    EXPECT_EQ(p.claim.size(), size_t(capacity));
    EXPECT_EQ(p.claim.size() + p.queue.size(), 3u);
    EXPECT_EQ(times(p.claim).front(), "10:00");  // oldest first
    EXPECT_EQ(times(p.queue).back(), "10:20");
  }
}

TEST(TickPlan, ReplaceRunsTheNewestStopsTheRunningAndSkipsOlderSlots) {
  const Loop loop = every(10 * kMinute, "10:00", OverlapPolicy::kReplace);
  const LoopTickPlan idle = plan(loop, {}, tick("10:25"));
  EXPECT_EQ(times(idle.claim), Strings{"10:20"});
  EXPECT_EQ(skipped(idle), (Strings{"10:00 overlap", "10:10 overlap"}));
  EXPECT_TRUE(idle.replace.empty());
  for (int busy : {1, 2}) {
    const LoopTickPlan p = plan(loop, running(busy), tick("10:05"));
    EXPECT_EQ(times(p.claim), Strings{"10:00"});
    EXPECT_TRUE(p.skipped.empty());
    Strings expected;
    for (const orrery::Run& run : running(busy).running) expected.push_back(run.id);
    EXPECT_EQ(p.replace, expected);
  }
}

TEST(TickPlan, ReplaceQueuesTheNewestBehindAQueuedRowThisPlanStarts) {
  const Loop loop = every(10 * kMinute, "10:00", OverlapPolicy::kReplace);
  const LoopTickPlan p = plan(loop, queued({"09:50"}), tick("10:15"));
  EXPECT_EQ(times(p.claim), Strings{"09:50"});
  EXPECT_EQ(times(p.queue), Strings{"10:10"});
  EXPECT_EQ(skipped(p), Strings{"10:00 overlap"});
  EXPECT_TRUE(p.replace.empty());
}

// --- Rule 4: queued rows ---

TEST(TickPlan, AQueuedRowStartsWhenNothingOfTheLoopRunsOldestFirst) {
  for (OverlapPolicy overlap :
       {OverlapPolicy::kSkip, OverlapPolicy::kQueue, OverlapPolicy::kReplace}) {
    const Loop loop = every(10 * kMinute, "11:00", overlap);
    const LoopTickPlan idle = plan(loop, queued({"09:40", "09:20", "09:30"}), tick("10:05"));
    EXPECT_EQ(times(idle.claim), Strings{"09:20"}) << overlap_name(overlap);
    EXPECT_TRUE(idle.queue.empty());
    EXPECT_EQ(idle.wait, TickWait::kBusy);  // the other two wait for it
    EXPECT_EQ(idle.state, schedule_state(loop));

    const LoopTickPlan busy = plan(loop, queued({"09:20"}, 1), tick("10:05"));
    EXPECT_TRUE(busy.claim.empty());
    EXPECT_EQ(busy.wait, TickWait::kBusy);
    EXPECT_FALSE(busy.changes_anything(loop));
  }
}

TEST(TickPlan, WithAllowQueuedRowsStartWithinCapacity) {
  const Loop loop = every(10 * kMinute, "11:00", OverlapPolicy::kAllow);
  const Strings rows = {"09:30", "09:10", "09:20"};
  for (int capacity : {1, 2, 3, 10}) {
    const LoopTickPlan p = plan(loop, queued(rows, 1), tick("10:05", capacity));
    const Strings all = {"09:10", "09:20", "09:30"};
    const size_t n = std::min<size_t>(size_t(capacity), 3);
    EXPECT_EQ(times(p.claim), Strings(all.begin(), all.begin() + long(n))) << capacity;
    EXPECT_EQ(p.wait, n < 3 ? TickWait::kCapacity : TickWait::kNone);
  }
}

TEST(TickPlan, QueuedRowsStartBeforeNewSlotsWhichThenFollowTheOverlapPolicy) {
  const Loop skip = every(10 * kMinute, "10:00", OverlapPolicy::kSkip);
  const LoopTickPlan p = plan(skip, queued({"09:50"}), tick("10:05"));
  EXPECT_EQ(times(p.claim), Strings{"09:50"});
  EXPECT_EQ(skipped(p), Strings{"10:00 overlap"});
  EXPECT_EQ(p.state.next_run_at, t("10:10"));

  const Loop allow = every(10 * kMinute, "10:00", OverlapPolicy::kAllow);
  const LoopTickPlan q = plan(allow, queued({"09:50"}), tick("10:05", 1));
  EXPECT_EQ(times(q.claim), Strings{"09:50"});
  EXPECT_EQ(times(q.queue), Strings{"10:00"});
}

TEST(TickPlan, WithAllowTheBacklogOfQueuedRowsIsCappedAndTheRestSkipped) {
  // One 1-minute loop; `held` queued rows already wait (all older than the
  // due slots); the daemon has room for `capacity` more; 10:00-10:14 are due.
  const Loop loop = every(kMinute, "10:00", OverlapPolicy::kAllow);
  for (int held : {0, 1, kMaxBacklog - 1, kMaxBacklog, kMaxBacklog + 3}) {
    for (int capacity : {1, 2, 5}) {
      SCOPED_TRACE("held " + std::to_string(held) + ", capacity " + std::to_string(capacity));
      Strings rows;
      for (int i = 0; i < held; ++i) rows.push_back("09:" + std::to_string(10 + i));
      const LoopTickPlan p = plan(loop, queued(rows), tick("10:14", capacity));
      const int due = 15;
      // Queued rows first, within the room; then the due slots.
      const int from_rows = std::min(held, capacity);
      const int room = capacity - from_rows;
      const int left_held = held - from_rows;
      const int claimed_new = std::min(due, room);
      const int queued_new = std::max(0, std::min(due - claimed_new, kMaxBacklog - left_held));
      const int skipped_new = due - claimed_new - queued_new;
      EXPECT_EQ(int(p.claim.size()), from_rows + claimed_new);
      EXPECT_EQ(int(p.queue.size()), queued_new);
      ASSERT_EQ(int(p.skipped.size()), skipped_new);
      for (const SkippedSlot& slot : p.skipped) EXPECT_EQ(slot.reason, SkipReason::kBacklog);
      // The oldest due slots are kept, the newest skipped.
      if (!p.skipped.empty() && !p.queue.empty()) {
        EXPECT_LT(p.queue.back(), p.skipped.front().slot);
      }
      EXPECT_LE(left_held + int(p.queue.size()), std::max(kMaxBacklog, left_held));
      EXPECT_EQ(p.state.missed_count, 0);  // skipped for backlog, not missed
      EXPECT_EQ(p.state.next_run_at, t("10:15"));
    }
  }
  EXPECT_STREQ(skip_reason_name(SkipReason::kBacklog), "backlog");
}

// --- Catch-up backlog ---

// The daemon started at 10:45; slots 10:00 to 10:40 fell due while none ran.
TEST(TickPlan, CatchUpLatestRunsTheNewestMissedSlot) {
  for (OverlapPolicy overlap : kAllPolicies) {
    Loop loop = with_catch_up(every(10 * kMinute, "10:00", overlap), CatchUpMode::kLatest);
    loop.missed_count = 7;
    const LoopTickPlan p = plan(loop, {}, tick("10:45", 64, "10:45"));
    EXPECT_EQ(times(p.claim), Strings{"10:40"}) << overlap_name(overlap);
    EXPECT_EQ(skipped(p),
              (Strings{"10:00 missed", "10:10 missed", "10:20 missed", "10:30 missed"}));
    EXPECT_EQ(p.state.missed_count, 11);
    EXPECT_EQ(p.state.next_run_at, t("10:50"));
  }
}

TEST(TickPlan, CatchUpAllRunsTheBacklogOneAfterAnother) {
  for (OverlapPolicy overlap :
       {OverlapPolicy::kSkip, OverlapPolicy::kQueue, OverlapPolicy::kReplace}) {
    const Loop loop = with_catch_up(every(10 * kMinute, "10:00", overlap), CatchUpMode::kAll);
    const LoopTickPlan idle = plan(loop, {}, tick("10:45", 64, "10:45"));
    EXPECT_EQ(times(idle.claim), Strings{"10:00"}) << overlap_name(overlap);
    EXPECT_EQ(times(idle.queue), (Strings{"10:10", "10:20", "10:30", "10:40"}));
    EXPECT_TRUE(idle.skipped.empty());
    EXPECT_EQ(idle.state.missed_count, 0);

    const LoopTickPlan busy = plan(loop, running(1), tick("10:45", 64, "10:45"));
    EXPECT_TRUE(busy.claim.empty());
    EXPECT_EQ(times(busy.queue), (Strings{"10:00", "10:10", "10:20", "10:30", "10:40"}));
    EXPECT_TRUE(busy.replace.empty());  // a backlog replaces nothing
  }
}

TEST(TickPlan, CatchUpAllWithAllowClaimsWithinCapacity) {
  const Loop loop =
      with_catch_up(every(10 * kMinute, "10:00", OverlapPolicy::kAllow), CatchUpMode::kAll);
  for (int capacity : {1, 3, 5, 64}) {
    const LoopTickPlan p = plan(loop, running(1), tick("10:45", capacity, "10:45"));
    const size_t n = std::min<size_t>(size_t(capacity), 5);
    EXPECT_EQ(p.claim.size(), n) << capacity;
    EXPECT_EQ(p.queue.size(), 5 - n);
  }
}

TEST(TickPlan, CatchUpAllHonoursItsLimitAndCountsTheRest) {
  for (int limit : {1, 2, 3}) {
    const Loop loop = with_catch_up(every(10 * kMinute, "10:00"), CatchUpMode::kAll, limit);
    const LoopTickPlan p = plan(loop, {}, tick("10:45", 64, "10:45"));
    EXPECT_EQ(p.claim.size() + p.queue.size(), size_t(limit)) << limit;
    EXPECT_EQ(times(p.claim), Strings{iso(t("10:40") - (limit - 1) * 10 * kMinute).substr(11, 5)});
    EXPECT_EQ(p.state.missed_count, 5 - limit);
    EXPECT_LE(p.skipped.size(), size_t(limit));
  }
}

TEST(TickPlan, CatchUpNoneRunsNoMissedSlotAndRecordsThem) {
  for (OverlapPolicy overlap : kAllPolicies) {
    const Loop loop = with_catch_up(every(10 * kMinute, "10:00", overlap), CatchUpMode::kNone);
    const LoopTickPlan p = plan(loop, {}, tick("10:45", 64, "10:45"));
    EXPECT_TRUE(p.claim.empty());
    EXPECT_TRUE(p.queue.empty());
    EXPECT_EQ(p.skipped.size(), 5u);
    EXPECT_EQ(p.state.missed_count, 5);
    EXPECT_EQ(p.state.next_run_at, t("10:50"));
    EXPECT_TRUE(p.changes_anything(loop));
  }
}

TEST(TickPlan, MissedSlotsComeBeforeWatchedOnesWhichFollowTheOverlapPolicy) {
  // Watching since 10:25: 10:00-10:20 were missed, 10:30 and 10:40 were not.
  const Loop skip = with_catch_up(every(10 * kMinute, "10:00"), CatchUpMode::kLatest);
  const LoopTickPlan p = plan(skip, {}, tick("10:45", 64, "10:25"));
  EXPECT_EQ(times(p.claim), Strings{"10:20"});
  EXPECT_EQ(skipped(p),
            (Strings{"10:00 missed", "10:10 missed", "10:30 overlap", "10:40 overlap"}));
  EXPECT_EQ(p.state.missed_count, 2);

  Loop allow = skip;
  allow.overlap = OverlapPolicy::kAllow;
  EXPECT_EQ(times(plan(allow, {}, tick("10:45", 64, "10:25")).claim),
            (Strings{"10:20", "10:30", "10:40"}));
}

TEST(TickPlan, ASlotLaterThanTheWindowIsSkippedNotRun) {
  // At 10:25 with a 12-minute window, 10:00 and 10:10 are too late; 10:20 is not.
  for (OverlapPolicy overlap : kAllPolicies) {
    Loop loop = every(10 * kMinute, "10:00", overlap);
    loop.catch_up.window = 12 * kMinute;
    const LoopTickPlan p = plan(loop, {}, tick("10:25"));
    EXPECT_EQ(skipped(p), (Strings{"10:00 missed", "10:10 missed"})) << overlap_name(overlap);
    EXPECT_EQ(times(p.claim), Strings{"10:20"});
    EXPECT_EQ(p.state.missed_count, 2);
  }
}

// --- Rule 5: retries ---

// A retry of `slot` due at `due`; the series had got to `resume` (by
// default 10:40: the slots up to 10:30 were planned before it failed).
Loop with_retry(Loop loop, const std::string& slot, const std::string& due,
                const std::string& resume = "10:40") {
  loop.retry_scheduled_for = t(slot);
  loop.next_run_at = t(due);
  loop.series_resume_at = t(resume);
  return loop;
}

TEST(TickPlan, ADueRetryRunsFirstAndAloneAndIsConsumed) {
  for (OverlapPolicy overlap : kAllPolicies) {
    const Loop loop = with_retry(every(10 * kMinute, "10:00", overlap), "10:00", "10:25");
    const LoopTickPlan p = plan(loop, {}, tick("10:25"));
    EXPECT_EQ(times(p.claim), Strings{"10:00"}) << overlap_name(overlap);
    EXPECT_TRUE(p.queue.empty());
    EXPECT_TRUE(p.skipped.empty());
    EXPECT_FALSE(p.state.retry_scheduled_for);
    EXPECT_EQ(p.state.next_run_at, t("10:40"));  // where the series had got to
  }
}

TEST(TickPlan, AConsumedRetryResumesTheSeriesWhereItHadGotTo) {
  // 10:10 and 10:20 were planned before the retry was scheduled.
  const Loop loop = with_retry(every(10 * kMinute, "10:00"), "10:00", "10:25", "10:30");
  const LoopTickPlan p = plan(loop, {}, tick("10:25"));
  EXPECT_EQ(times(p.claim), Strings{"10:00"});
  EXPECT_EQ(p.state.next_run_at, t("10:30"));
  EXPECT_FALSE(p.state.series_resume_at);
  EXPECT_FALSE(p.state.retry_scheduled_for);
}

TEST(TickPlan, ARetryNotYetDueWaitsQuietly) {
  const Loop loop = with_retry(every(10 * kMinute, "10:00"), "10:00", "10:25");
  for (const char* now : {"10:10", "10:24"}) {
    const LoopTickPlan p = plan(loop, {}, tick(now));
    expect_nothing_planned(p, loop, now);
    EXPECT_EQ(p.wait, TickWait::kNone);
  }
}

TEST(TickPlan, ARetryWaitsWhileAnotherRunOfTheLoopRuns) {
  for (OverlapPolicy overlap :
       {OverlapPolicy::kSkip, OverlapPolicy::kQueue, OverlapPolicy::kReplace}) {
    const Loop loop = with_retry(every(10 * kMinute, "10:00", overlap), "10:00", "10:25");
    const LoopTickPlan busy = plan(loop, running(1), tick("10:30"));
    expect_nothing_planned(busy, loop, overlap_name(overlap));
    EXPECT_EQ(busy.wait, TickWait::kBusy);
    // A queued row claimed in the same tick makes the loop busy too.
    const LoopTickPlan row = plan(loop, queued({"09:50"}), tick("10:30"));
    EXPECT_EQ(times(row.claim), Strings{"09:50"});
    EXPECT_EQ(row.state, schedule_state(loop));
    EXPECT_EQ(row.wait, TickWait::kBusy);
  }
  const Loop allow =
      with_retry(every(10 * kMinute, "10:00", OverlapPolicy::kAllow), "10:00", "10:25");
  EXPECT_EQ(times(plan(allow, running(2), tick("10:30")).claim), Strings{"10:00"});
  const LoopTickPlan full = plan(allow, queued({"09:40", "09:50"}), tick("10:30", 2));
  EXPECT_EQ(times(full.claim), (Strings{"09:40", "09:50"}));
  EXPECT_EQ(full.wait, TickWait::kCapacity);
  EXPECT_EQ(full.state, schedule_state(allow));
}

TEST(TickPlan, ARetryLaterThanTheWindowIsSkippedAndNewSlotsArePlanned) {
  Loop loop = with_retry(every(10 * kMinute, "10:00"), "10:00", "10:25", "10:30");
  loop.catch_up.window = 5 * kMinute;
  const LoopTickPlan p = plan(loop, {}, tick("10:31"));
  EXPECT_FALSE(p.state.retry_scheduled_for);
  EXPECT_EQ(skipped(p).front(), "10:00 missed");
  EXPECT_EQ(times(p.claim), Strings{"10:30"});
}

TEST(TickPlan, ARetryStillPendingWhenTheNextSlotIsDueNoLongerHoldsTheLoop) {
  // The 10:00 retry is due at 10:10, the series' next slot (it was capped
  // there); at 10:15 both are due.
  for (OverlapPolicy overlap :
       {OverlapPolicy::kSkip, OverlapPolicy::kQueue, OverlapPolicy::kReplace}) {
    SCOPED_TRACE(overlap_name(overlap));
    const Loop loop = with_retry(every(10 * kMinute, "10:00", overlap), "10:00", "10:10", "10:10");
    // Idle: latest runs the new slot instead of the retry.
    const LoopTickPlan idle = plan(loop, {}, tick("10:15"));
    EXPECT_EQ(times(idle.claim), Strings{"10:10"});
    EXPECT_EQ(skipped(idle), Strings{"10:00 missed"});
    EXPECT_FALSE(idle.state.retry_scheduled_for);
    EXPECT_FALSE(idle.state.series_resume_at);
    EXPECT_EQ(idle.state.next_run_at, t("10:20"));
    // Busy: the new slot follows the overlap policy; nothing waits.
    const LoopTickPlan busy = plan(loop, running(1), tick("10:15"));
    EXPECT_EQ(busy.wait, TickWait::kNone);
    EXPECT_EQ(skipped(busy).front(), "10:00 missed");
    EXPECT_FALSE(busy.state.retry_scheduled_for);
    EXPECT_EQ(busy.state.next_run_at, t("10:20"));
    // all: the retry is the oldest due slot and runs first, alone.
    const Loop all = with_catch_up(loop, CatchUpMode::kAll);
    const LoopTickPlan first = plan(all, {}, tick("10:15"));
    EXPECT_EQ(times(first.claim), Strings{"10:00"});
    EXPECT_TRUE(first.skipped.empty());
    EXPECT_EQ(first.state.next_run_at, t("10:10"));
  }
}

// --- Rule 7: the state left ---

Loop fixed_delay(const std::string& next) {
  Loop loop = every(10 * kMinute, next);
  loop.schedule.anchor = IntervalAnchor::kFixedDelay;
  return loop;
}

Loop dynamic(const std::string& next) {
  Loop loop = every(10 * kMinute, next);
  loop.schedule.type = ScheduleType::kDynamic;
  loop.schedule.min_ms = 5 * kMinute;
  loop.schedule.max_ms = 60 * kMinute;
  return loop;
}

Loop once(const std::string& when) {
  Loop loop = every(10 * kMinute, when);
  loop.schedule.type = ScheduleType::kOnce;
  loop.schedule.at = t(when);
  return loop;
}

TEST(TickPlan, FixedDelayDynamicAndOnceLoopsThatStartASlotWaitForItsSettlement) {
  for (const Loop& loop : {fixed_delay("10:00"), dynamic("10:00"), once("10:00")}) {
    const std::string name = schedule_type_name(loop.schedule.type);
    const LoopTickPlan claimed = plan(loop, {}, tick("10:05"));
    EXPECT_EQ(times(claimed.claim), Strings{"10:00"}) << name;
    EXPECT_FALSE(claimed.state.next_run_at) << name;
    EXPECT_EQ(claimed.state.status, LoopStatus::kActive);

    Loop queueing = with_catch_up(loop, CatchUpMode::kLatest);
    queueing.overlap = OverlapPolicy::kQueue;
    const LoopTickPlan held = plan(queueing, running(1), tick("10:05"));
    EXPECT_EQ(times(held.queue), Strings{"10:00"}) << name;
    EXPECT_FALSE(held.state.next_run_at) << name;
  }
}

TEST(TickPlan, ASkippedSlotOfAFixedDelayDynamicOrOnceLoopLeavesItAWayOn) {
  const LoopTickPlan delay = plan(fixed_delay("10:00"), running(1), tick("10:05"));
  EXPECT_EQ(skipped(delay), Strings{"10:00 overlap"});
  EXPECT_EQ(delay.state.next_run_at, t("10:10"));

  const LoopTickPlan chosen = plan(dynamic("10:00"), running(1), tick("10:05"));
  EXPECT_EQ(skipped(chosen), Strings{"10:00 overlap"});
  EXPECT_EQ(chosen.state.next_run_at, t("10:10"));  // now + min
  EXPECT_EQ(chosen.state.status, LoopStatus::kActive);

  for (CatchUpMode mode : {CatchUpMode::kNone}) {
    const Loop missed = with_catch_up(once("10:00"), mode);
    const LoopTickPlan p = plan(missed, {}, tick("10:05", 64, "10:05"));
    EXPECT_EQ(skipped(p), Strings{"10:00 missed"});
    EXPECT_EQ(p.state.status, LoopStatus::kCompleted);
    EXPECT_FALSE(p.state.next_run_at);
    EXPECT_EQ(p.state.missed_count, 1);
  }
  const LoopTickPlan overlapped = plan(once("10:00"), running(1), tick("10:05"));
  EXPECT_EQ(overlapped.state.status, LoopStatus::kCompleted);
}

TEST(TickPlan, FixedRateAndCronLoopsAdvanceWhenTheSlotIsPlanned) {
  Loop cron = every(10 * kMinute, "10:00");
  cron.schedule.type = ScheduleType::kCron;
  cron.schedule.expression = "*/15 * * * *";
  cron.schedule.timezone = "UTC";
  const LoopTickPlan c = plan(cron, {}, tick("10:20"));
  EXPECT_EQ(times(c.claim), Strings{"10:00"});
  EXPECT_EQ(skipped(c), Strings{"10:15 overlap"});
  EXPECT_EQ(c.state.next_run_at, t("10:30"));

  const LoopTickPlan r = plan(every(10 * kMinute, "10:00"), {}, tick("10:00"));
  EXPECT_EQ(r.state.next_run_at, t("10:10"));
}

TEST(TickPlan, NoSlotAtOrAfterExpiryIsPlanned) {
  for (const char* expiry : {"10:00", "10:10", "10:20"}) {
    Loop loop = every(10 * kMinute, "10:00", OverlapPolicy::kAllow);
    loop.expires_at = t(expiry);
    const LoopTickPlan p = plan(loop, {}, tick("10:35"));
    for (TimeMs slot : p.claim) EXPECT_LT(slot, t(expiry)) << expiry;
    EXPECT_EQ(p.state.next_run_at, t(expiry));
  }
  Loop at_expiry = every(10 * kMinute, "10:00");
  at_expiry.expires_at = t("10:00");
  expect_nothing_planned(plan(at_expiry, {}, tick("10:35")), at_expiry, "at expiry");
}

TEST(TickPlan, ChangesAnythingSeesRowsAndStateOnly) {
  const Loop loop = every(10 * kMinute, "10:00");
  LoopTickPlan p;
  p.state = schedule_state(loop);
  EXPECT_FALSE(p.changes_anything(loop));
  p.claim = {t("10:00")};
  EXPECT_TRUE(p.changes_anything(loop));
  p.claim.clear();
  p.queue = {t("10:00")};
  EXPECT_TRUE(p.changes_anything(loop));
  p.queue.clear();
  p.skipped = {{t("10:00"), SkipReason::kOverlap}};
  EXPECT_TRUE(p.changes_anything(loop));
  p.skipped.clear();
  p.state.missed_count = 1;
  EXPECT_TRUE(p.changes_anything(loop));
  p.state = schedule_state(loop);
  p.state.next_run_at = t("10:10");
  EXPECT_TRUE(p.changes_anything(loop));
}

// --- Property: every due slot is accounted for exactly once ---

struct RandomCase {
  Loop loop;
  LoopActivity activity;
  TickInput input;
};

RandomCase random_case(std::mt19937_64& rng) {
  auto pick = [&](int lo, int hi) { return int(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  RandomCase c;
  const TimeMs base = t("10:00");
  if (pick(0, 3) == 0) {
    c.loop = every(10 * kMinute, "10:00");
    c.loop.schedule.type = ScheduleType::kCron;
    c.loop.schedule.expression = "*/" + std::to_string(pick(1, 20)) + " * * * *";
    c.loop.schedule.timezone = "UTC";
    c.loop.next_run_at = *series_of(c.loop).initial(base - pick(0, 600) * kMinute);
  } else {
    c.loop = every(pick(1, 30) * kMinute, "10:00");
    c.loop.next_run_at = base - pick(0, 600) * kMinute + pick(0, 59) * 1000;
  }
  c.loop.overlap = kAllPolicies[pick(0, 3)];
  c.loop.catch_up.mode = CatchUpMode(pick(0, 2));
  c.loop.catch_up.limit = pick(1, 6);
  if (pick(0, 2) == 0) c.loop.catch_up.window = pick(1, 120) * kMinute;
  if (pick(0, 3) == 0) c.loop.expires_at = base - pick(-60, 600) * kMinute;
  c.loop.missed_count = pick(0, 5);
  c.activity = running(pick(0, 2));
  const int queued_rows = pick(0, 2);
  for (int i = 0; i < queued_rows; ++i) {
    orrery::Run row = run_at("q" + std::to_string(i), "09:00", RunStatus::kQueued);
    row.scheduled_for = *c.loop.next_run_at - (i + 1) * 1000;  // before every new slot
    c.activity.queued.push_back(row);
  }
  c.input.now = base + pick(-60, 60) * kMinute;
  c.input.watching_since = base - pick(-60, 600) * kMinute;
  c.input.capacity = pick(0, 4);
  return c;
}

TEST(TickPlanProperty, EveryDueSlotIsClaimedQueuedSkippedCountedOrStillDue) {
  std::mt19937_64 rng(20261130);
  for (int i = 0; i < 3000; ++i) {
    const RandomCase c = random_case(rng);
    const SlotSeries series = series_of(c.loop);
    auto result = plan_loop_tick(c.loop, series, c.activity, c.input);
    ASSERT_TRUE(result.ok()) << i;
    const LoopTickPlan& p = *result;
    const std::string context = "case " + std::to_string(i);

    std::set<TimeMs> queued_rows;
    for (const orrery::Run& row : c.activity.queued) queued_rows.insert(row.scheduled_for);
    std::multiset<TimeMs> covered;
    int claims_of_rows = 0;
    for (TimeMs slot : p.claim) {
      if (queued_rows.count(slot)) {
        ++claims_of_rows;
      } else {
        covered.insert(slot);
      }
    }
    for (TimeMs slot : p.queue) covered.insert(slot);
    std::int64_t missed_rows = 0;
    for (const SkippedSlot& s : p.skipped) {
      covered.insert(s.slot);
      missed_rows += s.reason == SkipReason::kMissed ? 1 : 0;
    }
    const std::int64_t unrecorded = p.state.missed_count - c.loop.missed_count - missed_rows;
    ASSERT_GE(unrecorded, 0) << context;

    // No slot in two places, none claimed beyond the capacity.
    for (TimeMs slot : covered) ASSERT_EQ(covered.count(slot), 1u) << context << " " << iso(slot);
    ASSERT_LE(int(p.claim.size()), std::max(c.input.capacity, 0)) << context;
    if (c.loop.overlap != OverlapPolicy::kAllow) {
      ASSERT_LE(p.claim.size(), 1u) << context;
    }
    ASSERT_TRUE(std::is_sorted(p.skipped.begin(), p.skipped.end(),
                               [](auto& a, auto& b) { return a.slot < b.slot; }));

    // The slots from the old next slot up to the new one are exactly those covered.
    const TimeMs from = *c.loop.next_run_at;
    TimeMs last_due = c.input.now;
    if (c.loop.expires_at) last_due = std::min(last_due, *c.loop.expires_at - 1);
    if (p.state == schedule_state(c.loop)) {
      ASSERT_TRUE(covered.empty()) << context;
      continue;
    }
    ASSERT_TRUE(p.state.next_run_at) << context;
    const TimeMs resume = *p.state.next_run_at;
    ASSERT_TRUE(resume > last_due || resume == from) << context;
    auto last_covered = series.latest_at_or_before(from, std::min(resume - 1, last_due));
    ASSERT_TRUE(last_covered.ok());
    const std::int64_t due = resume > from ? *series.count(from, *last_covered) : 0;
    ASSERT_EQ(std::int64_t(covered.size()) + unrecorded, due) << context;
    for (TimeMs slot : covered) {
      ASSERT_GE(slot, from) << context;
      ASSERT_LT(slot, resume) << context;
      ASSERT_LE(slot, last_due) << context;
    }
    ASSERT_GE(claims_of_rows, 0);
  }
}

}  // namespace
}  // namespace orrery
