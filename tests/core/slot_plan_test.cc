#include "core/slot_plan.h"

#include <gtest/gtest.h>

#include "support/time_literals.h"

namespace orrery {
namespace {

using testing::at;
using testing::iso;

constexpr DurationMs kMinute = 60'000;

SlotSeries every(DurationMs period) {
  Schedule schedule;
  schedule.type = ScheduleType::kInterval;
  schedule.every_ms = period;
  return *SlotSeries::compile(schedule, "loop");
}

SlotSeries cron(const std::string& expression) {
  Schedule schedule;
  schedule.type = ScheduleType::kCron;
  schedule.expression = expression;
  schedule.timezone = "UTC";
  return *SlotSeries::compile(schedule, "loop");
}

CatchUpPolicy policy(CatchUpMode mode, int limit = kDefaultCatchUpLimit,
                     std::optional<DurationMs> window = {}) {
  return {mode, limit, window};
}

// Times of day on 2026-01-01.
TimeMs t(const std::string& hh_mm) { return at("2026-01-01T" + hh_mm + ":00Z"); }

PlanInput input(const std::string& next, const std::string& now, const std::string& watching) {
  PlanInput in;
  in.next_run_at = t(next);
  in.now = t(now);
  in.watching_since = t(watching);
  return in;
}

SlotPlan plan(const SlotSeries& series, const CatchUpPolicy& p, const PlanInput& in) {
  auto result = plan_slots(series, p, in);
  EXPECT_TRUE(result.ok()) << (result ? "" : result.error().message);
  return result ? *result : SlotPlan{};
}

std::vector<std::string> times(const std::vector<TimeMs>& slots) {
  std::vector<std::string> out;
  for (TimeMs slot : slots) out.push_back(iso(slot).substr(11, 5));
  return out;
}

std::vector<std::string> skipped(const SlotPlan& p) {
  std::vector<std::string> out;
  for (const SkippedSlot& s : p.skipped) {
    out.push_back(iso(s.slot).substr(11, 5) + " " + skip_reason_name(s.reason));
  }
  return out;
}

using Strings = std::vector<std::string>;

TEST(SlotPlan, NothingRunsBeforeTheNextSlot) {
  const SlotPlan p =
      plan(every(10 * kMinute), policy(CatchUpMode::kLatest), input("10:00", "09:59", "09:00"));
  EXPECT_TRUE(p.run.empty());
  EXPECT_TRUE(p.skipped.empty());
  EXPECT_EQ(p.next_slot, t("10:00"));
}

TEST(SlotPlan, ADueSlotRunsAndTheSeriesMovesOn) {
  const SlotPlan p =
      plan(every(10 * kMinute), policy(CatchUpMode::kLatest), input("10:00", "10:00", "09:00"));
  EXPECT_EQ(times(p.run), Strings{"10:00"});
  EXPECT_EQ(p.next_slot, t("10:10"));
}

TEST(SlotPlan, SlotsThatFellDueWhileWatchedAllRunHoweverLate) {
  for (CatchUpMode mode : {CatchUpMode::kLatest, CatchUpMode::kAll, CatchUpMode::kNone}) {
    const SlotPlan p = plan(every(10 * kMinute), policy(mode), input("10:00", "10:25", "09:00"));
    EXPECT_EQ(times(p.run), (Strings{"10:00", "10:10", "10:20"})) << catch_up_mode_name(mode);
    EXPECT_TRUE(p.skipped.empty());
    EXPECT_EQ(p.next_slot, t("10:30"));
  }
}

// The daemon started at 10:45; slots 10:00 to 10:40 fell due while none ran.
TEST(SlotPlan, LatestRunsOnlyTheNewestMissedSlot) {
  const SlotPlan p =
      plan(every(10 * kMinute), policy(CatchUpMode::kLatest), input("10:00", "10:45", "10:45"));
  EXPECT_EQ(times(p.run), Strings{"10:40"});
  EXPECT_EQ(skipped(p), (Strings{"10:00 missed", "10:10 missed", "10:20 missed", "10:30 missed"}));
  EXPECT_EQ(p.missed_count_delta(), 4);
  EXPECT_EQ(p.next_slot, t("10:50"));
}

TEST(SlotPlan, AllRunsMissedSlotsOldestFirst) {
  const SlotPlan p =
      plan(every(10 * kMinute), policy(CatchUpMode::kAll), input("10:00", "10:45", "10:45"));
  EXPECT_EQ(times(p.run), (Strings{"10:00", "10:10", "10:20", "10:30", "10:40"}));
  EXPECT_TRUE(p.skipped.empty());
  EXPECT_EQ(p.missed_count_delta(), 0);
}

TEST(SlotPlan, AllRunsOnlyTheNewestLimitAndSkipsTheRest) {
  const SlotPlan p =
      plan(every(10 * kMinute), policy(CatchUpMode::kAll, 3), input("10:00", "10:45", "10:45"));
  EXPECT_EQ(times(p.run), (Strings{"10:20", "10:30", "10:40"}));
  EXPECT_EQ(skipped(p), (Strings{"10:00 missed", "10:10 missed"}));
}

TEST(SlotPlan, NoneRunsNoMissedSlot) {
  const SlotPlan p =
      plan(every(10 * kMinute), policy(CatchUpMode::kNone), input("10:00", "10:45", "10:45"));
  EXPECT_TRUE(p.run.empty());
  EXPECT_EQ(p.skipped.size(), 5u);
  EXPECT_EQ(p.missed_count_delta(), 5);
  EXPECT_EQ(p.next_slot, t("10:50"));
}

TEST(SlotPlan, SkippedRowsStopAtTheLimitAndTheRestAreCounted) {
  const SlotPlan p =
      plan(every(10 * kMinute), policy(CatchUpMode::kNone, 2), input("10:00", "10:45", "10:45"));
  EXPECT_EQ(skipped(p), (Strings{"10:30 missed", "10:40 missed"}));
  EXPECT_EQ(p.missed_unrecorded, 3);
  EXPECT_EQ(p.missed_count_delta(), 5);
}

TEST(SlotPlan, MissedSlotsFollowThePolicyAndWatchedOnesAllRun) {
  // Watching since 10:25: 10:00-10:20 were missed, 10:30 and 10:40 were not.
  const SlotPlan p =
      plan(every(10 * kMinute), policy(CatchUpMode::kLatest), input("10:00", "10:45", "10:25"));
  EXPECT_EQ(times(p.run), (Strings{"10:20", "10:30", "10:40"}));
  EXPECT_EQ(skipped(p), (Strings{"10:00 missed", "10:10 missed"}));
}

TEST(SlotPlan, ASlotLaterThanTheWindowNeverRunsWhateverThePolicy) {
  // 10:00-10:20 are 45, 35 and 25 minutes late; 10:30 is exactly 15.
  const SlotPlan p = plan(every(10 * kMinute), policy(CatchUpMode::kAll, 50, 15 * kMinute),
                          input("10:00", "10:45", "09:00"));
  EXPECT_EQ(times(p.run), (Strings{"10:30", "10:40"}));
  EXPECT_EQ(skipped(p), (Strings{"10:00 missed", "10:10 missed", "10:20 missed"}));
  const SlotPlan latest = plan(every(10 * kMinute), policy(CatchUpMode::kLatest, 50, kMinute),
                               input("10:00", "10:45", "10:45"));
  EXPECT_TRUE(latest.run.empty());
  EXPECT_EQ(latest.skipped.size(), 5u);
}

TEST(SlotPlan, APendingRetryRunsFirstAndAlone) {
  for (CatchUpMode mode : {CatchUpMode::kLatest, CatchUpMode::kAll, CatchUpMode::kNone}) {
    // Due at 10:00; the series' next slot, 10:10, is not due yet.
    PlanInput in = input("10:00", "10:05", "09:00");
    in.retry_slot = t("09:50");
    in.resume_at = t("10:10");
    const SlotPlan p = plan(every(10 * kMinute), policy(mode), in);
    EXPECT_EQ(times(p.run), Strings{"09:50"}) << catch_up_mode_name(mode);
    EXPECT_TRUE(p.run_is_retry);
    EXPECT_TRUE(p.skipped.empty());
    EXPECT_EQ(p.next_slot, t("10:10"));
  }
}

TEST(SlotPlan, ARetryStillPendingWhenTheNextSlotIsDueIsDecidedByTheCatchUpPolicy) {
  // The 09:50 retry is due at 10:00 (its own time or the next slot's); the
  // series' next slot is `resume`; at `now` both are due.
  struct Case {
    const char* resume;
    const char* now;
  };
  for (const Case c : {Case{"10:00", "10:00"}, Case{"10:00", "10:07"}, Case{"10:10", "10:25"}}) {
    SCOPED_TRACE(std::string(c.resume) + " " + c.now);
    PlanInput in = input("10:00", c.now, "09:00");
    in.retry_slot = t("09:50");
    in.resume_at = t(c.resume);
    // all: the retry, the oldest due slot, runs first and alone.
    const SlotPlan all = plan(every(10 * kMinute), policy(CatchUpMode::kAll), in);
    EXPECT_EQ(times(all.run), Strings{"09:50"});
    EXPECT_TRUE(all.run_is_retry);
    EXPECT_EQ(all.next_slot, t(c.resume));
    // latest and none: the retry is skipped (missed) and the due slots are
    // planned without it (watched slots all run, oldest first).
    for (CatchUpMode mode : {CatchUpMode::kLatest, CatchUpMode::kNone}) {
      const SlotPlan p = plan(every(10 * kMinute), policy(mode), in);
      EXPECT_FALSE(p.run_is_retry) << catch_up_mode_name(mode);
      EXPECT_EQ(skipped(p), Strings{"09:50 missed"});
      EXPECT_EQ(p.missed_count_delta(), 1);
      ASSERT_FALSE(p.run.empty());
      EXPECT_EQ(p.run.front(), t(c.resume));
      EXPECT_GT(*p.next_slot, t(c.now));
    }
  }
  // Missed, not watched: latest runs only the newest of them.
  PlanInput missed = input("10:00", "10:35", "10:33");
  missed.retry_slot = t("09:50");
  missed.resume_at = t("10:00");
  const SlotPlan p = plan(every(10 * kMinute), policy(CatchUpMode::kLatest), missed);
  EXPECT_EQ(times(p.run), Strings{"10:30"});
  EXPECT_EQ(skipped(p), (Strings{"09:50 missed", "10:00 missed", "10:10 missed", "10:20 missed"}));
  // A next slot at or after the loop's expiry is not due: the retry runs.
  PlanInput expiring = input("10:00", "10:15", "09:00");
  expiring.retry_slot = t("09:50");
  expiring.resume_at = t("10:10");
  expiring.expires_at = t("10:10");
  EXPECT_TRUE(plan(every(10 * kMinute), policy(CatchUpMode::kLatest), expiring).run_is_retry);
}

TEST(SlotPlan, AfterARetryTheSeriesResumesWhereItHadGotTo) {
  // 09:50 failed after 10:00 and 10:10 were planned: they are not planned again.
  for (const char* resume : {"10:20", "10:30"}) {
    PlanInput in = input("10:25", "10:25", "09:00");
    in.retry_slot = t("09:50");
    in.resume_at = t(resume);
    const SlotPlan p = plan(every(10 * kMinute), policy(CatchUpMode::kAll), in);
    EXPECT_EQ(times(p.run), Strings{"09:50"}) << resume;
    EXPECT_EQ(p.next_slot, t(resume));
  }
  PlanInput late = input("10:25", "10:45", "09:00");
  late.retry_slot = t("09:50");
  late.resume_at = t("10:30");
  const SlotPlan skipped_retry =
      plan(every(10 * kMinute), policy(CatchUpMode::kLatest, 50, 10 * kMinute), late);
  EXPECT_EQ(times(skipped_retry.run), Strings{"10:40"});
  EXPECT_EQ(skipped(skipped_retry), (Strings{"09:50 missed", "10:30 missed"}));
}

TEST(SlotPlan, ARetryLaterThanTheWindowIsSkippedAndPlanningGoesOn) {
  PlanInput in = input("10:00", "10:15", "09:00");
  in.retry_slot = t("09:50");
  const SlotPlan p = plan(every(10 * kMinute), policy(CatchUpMode::kLatest, 50, 10 * kMinute), in);
  EXPECT_FALSE(p.run_is_retry);
  EXPECT_EQ(times(p.run), Strings{"10:10"});
  EXPECT_EQ(skipped(p), (Strings{"09:50 missed", "10:00 missed"}));
}

TEST(SlotPlan, NoSlotAtOrAfterExpiryIsDue) {
  PlanInput in = input("10:00", "10:45", "09:00");
  in.expires_at = t("10:25");
  const SlotPlan p = plan(every(10 * kMinute), policy(CatchUpMode::kAll), in);
  EXPECT_EQ(times(p.run), (Strings{"10:00", "10:10", "10:20"}));
  EXPECT_EQ(p.next_slot, t("10:30"));
}

TEST(SlotPlan, AMissedOnceSlotRunsUnderLatestAndIsSkippedUnderNone) {
  Schedule schedule;
  schedule.type = ScheduleType::kOnce;
  schedule.at = t("10:00");
  const SlotSeries series = *SlotSeries::compile(schedule, "loop");
  const SlotPlan latest =
      plan(series, policy(CatchUpMode::kLatest), input("10:00", "11:00", "10:30"));
  EXPECT_EQ(times(latest.run), Strings{"10:00"});
  EXPECT_EQ(latest.next_slot, std::nullopt);
  const SlotPlan none = plan(series, policy(CatchUpMode::kNone), input("10:00", "11:00", "10:30"));
  EXPECT_TRUE(none.run.empty());
  EXPECT_EQ(skipped(none), Strings{"10:00 missed"});
}

TEST(SlotPlan, CronCatchUpAfterTwoDaysDown) {
  // Hourly from 1 January 00:00 to 3 January 00:00: 49 missed slots.
  PlanInput in;
  in.next_run_at = at("2026-01-01T00:00:00Z");
  in.now = in.watching_since = at("2026-01-03T00:30:00Z");
  const SlotPlan latest = plan(cron("0 * * * *"), policy(CatchUpMode::kLatest), in);
  EXPECT_EQ(latest.run, std::vector<TimeMs>{at("2026-01-03T00:00:00Z")});
  EXPECT_EQ(latest.skipped.size(), 48u);
  EXPECT_EQ(latest.skipped.front().slot, at("2026-01-01T00:00:00Z"));
  EXPECT_EQ(latest.next_slot, at("2026-01-03T01:00:00Z"));
  const SlotPlan all = plan(cron("0 * * * *"), policy(CatchUpMode::kAll), in);
  EXPECT_EQ(all.run.size(), 49u);
  EXPECT_EQ(all.run.front(), at("2026-01-01T00:00:00Z"));
}

TEST(SlotPlan, AMonthDownRecordsAtMostTheLimitAndCountsTheRest) {
  // Every minute for 30 days: 43,200 missed slots.
  PlanInput in;
  in.next_run_at = at("2026-01-01T00:00:00Z");
  in.now = in.watching_since = at("2026-01-30T23:59:30Z");
  const SlotPlan p = plan(cron("* * * * *"), policy(CatchUpMode::kAll, 50), in);
  EXPECT_EQ(p.run.size(), 50u);
  EXPECT_EQ(p.run.back(), at("2026-01-30T23:59:00Z"));
  EXPECT_EQ(p.skipped.size(), 50u);
  EXPECT_EQ(p.missed_count_delta(), 43'200 - 50);
}

TEST(SlotPlan, APlanRunsAtMostItsCapAndLeavesTheRestDue) {
  PlanInput in;
  in.next_run_at = at("2026-01-01T00:00:00Z");
  in.now = in.next_run_at + 2'000'000;  // 2,000 one-second slots, all watched
  in.watching_since = in.next_run_at - 1;
  const SlotPlan p = plan(every(1000), policy(CatchUpMode::kLatest), in);
  EXPECT_EQ(p.run.size(), size_t(kMaxSlotsPerPlan));
  EXPECT_EQ(p.next_slot, in.next_run_at + kMaxSlotsPerPlan * 1000);
}

TEST(SlotPlan, CatchUpLimitOutOfRangeIsRejected) {
  auto low =
      plan_slots(every(kMinute), policy(CatchUpMode::kAll, 0), input("10:00", "10:00", "09:00"));
  ASSERT_FALSE(low.ok());
  EXPECT_EQ(low.error().message, "catch-up limit 0 out of range 1-1000");
  auto high = validate_catch_up(policy(CatchUpMode::kAll, 1001));
  ASSERT_FALSE(high.ok());
  EXPECT_EQ(high.error().message, "catch-up limit 1001 out of range 1-1000");
  EXPECT_FALSE(validate_catch_up(policy(CatchUpMode::kAll, 5, 0)).ok());
}

}  // namespace
}  // namespace orrery
