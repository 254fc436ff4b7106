#include "core/schedule.h"

#include <gtest/gtest.h>

#include <set>

#include "support/time_literals.h"

namespace orrery {
namespace {

using testing::at;
using testing::iso;

constexpr DurationMs kMinute = 60'000;

Schedule interval(DurationMs every, IntervalAnchor anchor = IntervalAnchor::kFixedRate) {
  Schedule schedule;
  schedule.type = ScheduleType::kInterval;
  schedule.every_ms = every;
  schedule.anchor = anchor;
  return schedule;
}

Schedule cron(const std::string& expression, const std::string& zone = "UTC") {
  Schedule schedule;
  schedule.type = ScheduleType::kCron;
  schedule.expression = expression;
  schedule.timezone = zone;
  return schedule;
}

Schedule once(TimeMs when) {
  Schedule schedule;
  schedule.type = ScheduleType::kOnce;
  schedule.at = when;
  return schedule;
}

Schedule dynamic(DurationMs min, DurationMs max) {
  Schedule schedule;
  schedule.type = ScheduleType::kDynamic;
  schedule.min_ms = min;
  schedule.max_ms = max;
  return schedule;
}

SlotSeries compile(const Schedule& schedule, const std::string& loop_id = "loop") {
  auto series = SlotSeries::compile(schedule, loop_id);
  EXPECT_TRUE(series.ok()) << (series ? "" : series.error().message);
  return series ? *series : *SlotSeries::compile(interval(kMinute), "");
}

std::string compile_error(const Schedule& schedule) {
  auto series = SlotSeries::compile(schedule, "loop");
  EXPECT_FALSE(series.ok());
  return series ? "" : series.error().message;
}

std::string slot(const Result<std::optional<TimeMs>>& result) {
  EXPECT_TRUE(result.ok()) << (result ? "" : result.error().message);
  return result && result->has_value() ? iso(**result) : "none";
}

TEST(Schedule, InvalidSchedulesAreRejectedWithTheValue) {
  EXPECT_EQ(compile_error(interval(0)), "--every 0s is shorter than the minimum of 1s");
  EXPECT_EQ(compile_error(dynamic(0, kMinute)), "--min 0s must be greater than zero");
  EXPECT_EQ(compile_error(dynamic(10 * kMinute, kMinute)), "--max 1m is less than --min 10m");
  EXPECT_EQ(compile_error(cron("0 0 32 * *")), "day-of-month 32 out of range 1-31 in '0 0 32 * *'");
  EXPECT_EQ(compile_error(cron("0 0 * * *", "Mars/Olympus")),
            "unknown time zone 'Mars/Olympus': expected an IANA name such as Europe/Berlin or UTC");
}

TEST(Schedule, InitialSlotPerType) {
  const TimeMs from = at("2026-01-01T10:00:00Z");
  EXPECT_EQ(slot(compile(once(at("2026-02-01T00:00:00Z"))).initial(from)),
            "2026-02-01T00:00:00.000Z");
  EXPECT_EQ(slot(compile(interval(15 * kMinute)).initial(from)), "2026-01-01T10:15:00.000Z");
  EXPECT_EQ(slot(compile(cron("0 * * * *")).initial(from)), "2026-01-01T11:00:00.000Z");
  EXPECT_EQ(slot(compile(dynamic(5 * kMinute, 60 * kMinute)).initial(from)),
            "2026-01-01T10:05:00.000Z");
}

TEST(Schedule, FollowingSlot) {
  const TimeMs slot_time = at("2026-01-01T10:00:00Z");
  EXPECT_EQ(slot(compile(interval(15 * kMinute)).following(slot_time)), "2026-01-01T10:15:00.000Z");
  EXPECT_EQ(slot(compile(cron("0 9 * * 1-5")).following(slot_time)), "2026-01-02T09:00:00.000Z");
  EXPECT_EQ(slot(compile(once(slot_time)).following(slot_time)), "none");
  EXPECT_EQ(slot(compile(dynamic(kMinute, 2 * kMinute)).following(slot_time)), "none");
}

TEST(Schedule, FixedRateSkipsSlotsAlreadyPastAtFinish) {
  const SlotSeries series = compile(interval(10 * kMinute));
  const TimeMs scheduled = at("2026-01-01T10:00:00Z");
  EXPECT_EQ(slot(series.after_finish(scheduled, at("2026-01-01T10:05:00Z"))),
            "2026-01-01T10:10:00.000Z");
  EXPECT_EQ(slot(series.after_finish(scheduled, at("2026-01-01T10:25:00Z"))),
            "2026-01-01T10:30:00.000Z");
  // A finish exactly on a slot does not run that slot: it is past.
  EXPECT_EQ(slot(series.after_finish(scheduled, at("2026-01-01T10:20:00Z"))),
            "2026-01-01T10:30:00.000Z");
}

TEST(Schedule, FixedDelayCountsFromTheFinish) {
  const SlotSeries series = compile(interval(10 * kMinute, IntervalAnchor::kFixedDelay));
  EXPECT_EQ(slot(series.after_finish(at("2026-01-01T10:00:00Z"), at("2026-01-01T10:25:30Z"))),
            "2026-01-01T10:35:30.000Z");
}

TEST(Schedule, CronSkipsFireTimesPastAtFinish) {
  const SlotSeries series = compile(cron("*/15 * * * *"));
  EXPECT_EQ(slot(series.after_finish(at("2026-01-01T10:00:00Z"), at("2026-01-01T10:31:00Z"))),
            "2026-01-01T10:45:00.000Z");
  EXPECT_EQ(slot(series.after_finish(at("2026-01-01T10:00:00Z"), at("2026-01-01T10:00:10Z"))),
            "2026-01-01T10:15:00.000Z");
}

TEST(Schedule, OnceHasNothingAfterItsSlot) {
  const TimeMs when = at("2026-01-01T10:00:00Z");
  EXPECT_EQ(slot(compile(once(when)).after_finish(when, when + kMinute)), "none");
}

TEST(Schedule, DynamicTakesTheRunsChoiceClampedToMinMax) {
  const SlotSeries series = compile(dynamic(kMinute, 60 * kMinute));
  const TimeMs finished = at("2026-01-01T10:00:00Z");
  EXPECT_EQ(slot(series.after_finish(finished, finished, 20 * kMinute)),
            "2026-01-01T10:20:00.000Z");
  EXPECT_EQ(slot(series.after_finish(finished, finished, 120 * kMinute)),
            "2026-01-01T11:00:00.000Z");
  EXPECT_EQ(slot(series.after_finish(finished, finished, 10'000)), "2026-01-01T10:01:00.000Z");
  EXPECT_EQ(slot(series.after_finish(finished, finished)), "2026-01-01T10:01:00.000Z");
}

TEST(Schedule, LatestSlotAtOrBefore) {
  const TimeMs first = at("2026-01-01T10:00:00Z");
  auto latest_interval =
      compile(interval(10 * kMinute)).latest_at_or_before(first, at("2026-01-01T10:35:00Z"));
  EXPECT_EQ(iso(*latest_interval), "2026-01-01T10:30:00.000Z");
  auto on_slot =
      compile(interval(10 * kMinute)).latest_at_or_before(first, at("2026-01-01T10:30:00Z"));
  EXPECT_EQ(iso(*on_slot), "2026-01-01T10:30:00.000Z");
  auto latest_cron =
      compile(cron("0 * * * *")).latest_at_or_before(first, at("2026-01-01T12:30:00Z"));
  EXPECT_EQ(iso(*latest_cron), "2026-01-01T12:00:00.000Z");
  auto before_first = compile(cron("0 * * * *")).latest_at_or_before(first, first - 1);
  EXPECT_EQ(iso(*before_first), "2026-01-01T10:00:00.000Z");
}

TEST(Schedule, CountSlotsInARange) {
  const TimeMs first = at("2026-01-01T10:00:00Z");
  EXPECT_EQ(*compile(interval(10 * kMinute)).count(first, at("2026-01-01T11:00:00Z")), 7);
  EXPECT_EQ(*compile(cron("0 * * * *")).count(first, at("2026-01-01T12:00:00Z")), 3);
  EXPECT_EQ(*compile(cron("0 * * * *")).count(first, first), 1);
}

// Counting is bounded: past kMaxSlotsCounted slots a cron series estimates
// the rest at the rate of those counted (exact for a steady rate), so a span
// of eight thousand years of minutes is counted at once.
TEST(SlotSeriesCount, ManyCronSlotsAreCountedWithBoundedWork) {
  const TimeMs first = at("1970-01-01T00:00:00Z");
  for (const TimeMs last :
       {at("1970-03-11T10:39:00Z"), at("2026-01-01T00:00:00Z"), at("9999-12-31T23:59:00Z")}) {
    const auto counted = compile(cron("* * * * *")).count(first, last);
    ASSERT_TRUE(counted.ok());
    EXPECT_EQ(*counted, (last - first) / kMinute + 1) << last;
  }
  // Below the bound every slot is counted: a daily cron over four years.
  EXPECT_EQ(
      *compile(cron("0 9 * * *")).count(at("2024-01-01T09:00:00Z"), at("2027-12-31T09:00:00Z")),
      1461);
}

TEST(Schedule, PreviewListsSlotsStrictlyAfterFrom) {
  const TimeMs from = at("2026-01-01T10:00:00Z");
  auto every = compile(interval(10 * kMinute)).preview(from, 3);
  ASSERT_TRUE(every.ok());
  EXPECT_EQ(every->size(), 3u);
  EXPECT_EQ(iso((*every)[0]), "2026-01-01T10:10:00.000Z");
  EXPECT_EQ(iso((*every)[2]), "2026-01-01T10:30:00.000Z");
  EXPECT_TRUE(compile(once(from)).preview(from, 3)->empty());
  EXPECT_EQ(compile(once(from + 1)).preview(from, 3)->size(), 1u);
}

TEST(Schedule, JitterOffsetIsStablePerLoopAndWithinItsBound) {
  const DurationMs jitter = 10 * kMinute;
  std::set<DurationMs> offsets;
  for (int i = 0; i < 50; ++i) {
    const std::string id = "loop-" + std::to_string(i);
    const DurationMs offset = jitter_offset(id, jitter);
    EXPECT_GE(offset, 0);
    EXPECT_LT(offset, jitter);
    EXPECT_EQ(offset, jitter_offset(id, jitter));
    offsets.insert(offset);
  }
  EXPECT_GT(offsets.size(), 40u);  // spread, not one shared value
  EXPECT_EQ(jitter_offset("any", 0), 0);
}

TEST(Schedule, JitterShiftsEveryCronSlotByTheLoopsOffset) {
  Schedule hourly = cron("0 * * * *");
  hourly.jitter_ms = 10 * kMinute;
  const SlotSeries series = compile(hourly, "loop-7");
  const DurationMs offset = jitter_offset("loop-7", 10 * kMinute);
  ASSERT_EQ(series.offset(), offset);
  const TimeMs from = at("2026-01-01T10:00:00Z") + offset;  // exactly a jittered slot
  auto slots = series.preview(from, 2);
  ASSERT_TRUE(slots.ok());
  EXPECT_EQ((*slots)[0], at("2026-01-01T11:00:00Z") + offset);
  EXPECT_EQ((*slots)[1], at("2026-01-01T12:00:00Z") + offset);
}

}  // namespace
}  // namespace orrery
