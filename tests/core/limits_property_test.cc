// Property tests over extreme values (docs/scheduling.md, "Limits"): every
// duration option, through build_loop, is either refused with a usage error
// or within its maximum; every schedule kind, from any start in 1970-9999,
// gives slots that go forward, stay within 9999 and end.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "core/limits.h"
#include "core/loop_spec.h"
#include "core/schedule.h"
#include "core/slot_plan.h"
#include "support/time_literals.h"

namespace orrery {
namespace {

constexpr DurationMs kMaxInt = std::numeric_limits<std::int64_t>::max();
const TimeMs kNow = testing::at("2026-06-01T12:00:00Z");
const std::string kId = "0123456789abcdef0123456789abcdef";

// Durations worth trying: the ends of every range and of int64.
std::vector<DurationMs> extreme_durations() {
  std::vector<DurationMs> values = {0,
                                    1,
                                    999,
                                    1000,
                                    60'000,
                                    kMsPerDay,
                                    kMaxLeaseMs - 1,
                                    kMaxLeaseMs,
                                    kMaxLeaseMs + 1,
                                    kMaxIntervalMs - 1,
                                    kMaxIntervalMs,
                                    kMaxIntervalMs + 1,
                                    kLatestTime,
                                    kLatestTime - kNow,
                                    kMaxInt - kNow,
                                    kMaxInt - kNow + 1,
                                    kMaxInt / 2,
                                    kMaxInt - 1,
                                    kMaxInt,
                                    106'751'991'167LL * kMsPerDay};
  return values;
}

using Setter = void (*)(LoopSpec&, const std::string&);

struct Option {
  const char* name;    // what the value is given as
  const char* option;  // what an error must name
  Setter set;
};

const Option kOptions[] = {
    {"--every", "--every", [](LoopSpec& s, const std::string& v) { s.every = v; }},
    {"--jitter", "--jitter", [](LoopSpec& s, const std::string& v) { s.jitter = v; }},
    {"--min", "--min",
     [](LoopSpec& s, const std::string& v) {
       s.every.clear();
       s.dynamic = true;
       s.min = v;
     }},
    {"--max", "--max",
     [](LoopSpec& s, const std::string& v) {
       s.every.clear();
       s.dynamic = true;
       s.min = "1ms";
       s.max = v;
     }},
    {"--catch-up-window", "--catch-up-window",
     [](LoopSpec& s, const std::string& v) { s.catch_up_window = v; }},
    {"--timeout", "--timeout", [](LoopSpec& s, const std::string& v) { s.timeout = v; }},
    {"--idle-timeout", "--idle-timeout",
     [](LoopSpec& s, const std::string& v) { s.idle_timeout = v; }},
    {"--lease", "--lease", [](LoopSpec& s, const std::string& v) { s.lease = v; }},
    {"--retry-delay", "--retry-delay",
     [](LoopSpec& s, const std::string& v) { s.retry_delay = v; }},
    {"--at +", "--at",
     [](LoopSpec& s, const std::string& v) {
       s.every.clear();
       s.at = "+" + v;
     }},
    {"--expires +", "--expires", [](LoopSpec& s, const std::string& v) { s.expires = "+" + v; }},
};

void expect_within_limits(const Loop& loop, const std::string& what) {
  const Schedule& schedule = loop.schedule;
  EXPECT_LE(schedule.every_ms, kMaxIntervalMs) << what;
  EXPECT_LE(schedule.jitter_ms, kMaxJitterMs) << what;
  EXPECT_LE(schedule.max_ms, kMaxDynamicDelayMs) << what;
  EXPECT_LE(loop.lease_ms, kMaxLeaseMs) << what;
  EXPECT_LE(loop.retry_delay_ms, kMaxRetryDelayMs) << what;
  EXPECT_LE(loop.timeout_ms.value_or(0), kMaxTimeoutMs) << what;
  EXPECT_LE(loop.idle_timeout_ms.value_or(0), kMaxTimeoutMs) << what;
  EXPECT_LE(loop.catch_up.window.value_or(0), kMaxCatchUpWindowMs) << what;
  ASSERT_TRUE(loop.next_run_at.has_value()) << what;
  EXPECT_GT(*loop.next_run_at, kNow) << what;
  EXPECT_LE(*loop.next_run_at, kLatestTime) << what;
  EXPECT_LE(loop.expires_at.value_or(kLatestTime), kLatestTime) << what;
}

TEST(LimitsProperty, EveryDurationOptionIsRefusedOrWithinItsMaximum) {
  for (const Option& option : kOptions) {
    for (DurationMs value : extreme_durations()) {
      for (const std::string& text :
           {std::to_string(value), std::to_string(value) + "ms", std::to_string(value) + "d"}) {
        LoopSpec spec{.name = "x", .every = "1m", .max_attempts = 2, .command = {"/bin/true"}};
        option.set(spec, text);
        const std::string what = std::string(option.name) + " " + text;
        auto built = build_loop(spec, kId, kNow, TimeZone::utc());
        if (built) {
          expect_within_limits(built->loop, what);
        } else {
          EXPECT_EQ(built.error().code, ErrorCode::kUsage) << what;
          EXPECT_NE(built.error().message.find(option.option), std::string::npos)
              << what << ": " << built.error().message;
        }
      }
    }
  }
}

// The slots of a series from `from`: strictly increasing, after from, within
// 9999, at most n, and the series ends or goes on forward after the last.
void expect_well_behaved(const SlotSeries& series, TimeMs from, const std::string& what) {
  auto preview = series.preview(from, 20);
  ASSERT_TRUE(preview.ok()) << what << ": " << preview.error().message;
  ASSERT_LE(preview->size(), 20u) << what;
  TimeMs previous = from;
  for (TimeMs slot : *preview) {
    EXPECT_GT(slot, previous) << what;
    EXPECT_LE(slot, kLatestTime) << what;
    previous = slot;
  }
  if (preview->empty()) return;
  auto following = series.following(preview->back());
  ASSERT_TRUE(following.ok()) << what;
  if (following->has_value()) {
    EXPECT_GT(**following, preview->back()) << what;
    EXPECT_LE(**following, kLatestTime) << what;
  }
  for (TimeMs finished : {preview->back(), preview->back() + 1, kLatestTime}) {
    auto after = series.after_finish(preview->front(), finished, kMaxInt);
    ASSERT_TRUE(after.ok()) << what;
    EXPECT_LE(after->value_or(kLatestTime), kLatestTime) << what;
  }
}

std::vector<TimeMs> extreme_starts() {
  return {kEarliestTime,   kNow,       testing::at("9999-01-01T00:00:00Z"), kLatestTime - kMsPerDay,
          kLatestTime - 1, kLatestTime};
}

Schedule with_jitter(Schedule schedule, DurationMs jitter) {
  schedule.jitter_ms = jitter;
  return schedule;
}

TEST(LimitsProperty, EverySeriesGoesForwardStaysWithin9999AndEnds) {
  std::vector<Schedule> schedules;
  for (DurationMs every : extreme_durations()) {
    for (IntervalAnchor anchor : {IntervalAnchor::kFixedRate, IntervalAnchor::kFixedDelay}) {
      Schedule interval;
      interval.type = ScheduleType::kInterval;
      interval.every_ms = every;
      interval.anchor = anchor;
      schedules.push_back(interval);
    }
    Schedule dynamic;
    dynamic.type = ScheduleType::kDynamic;
    dynamic.min_ms = std::max<DurationMs>(every, 1);
    dynamic.max_ms = every;
    schedules.push_back(dynamic);
  }
  for (TimeMs at : {kEarliestTime, kNow, kLatestTime - 1, kLatestTime, kLatestTime + 1, kMaxInt}) {
    Schedule once;
    once.type = ScheduleType::kOnce;
    once.at = at;
    schedules.push_back(once);
  }
  for (const char* expression :
       {"* * * * *", "0 0 1 1 *", "0 0 29 2 *", "59 23 31 12 *", "0 0 29 2 1", "*/7 */5 * * *"}) {
    for (const char* zone : {"UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago"}) {
      Schedule cron;
      cron.type = ScheduleType::kCron;
      cron.expression = expression;
      cron.timezone = zone;
      schedules.push_back(cron);
    }
  }
  int compiled = 0;
  for (const Schedule& base : schedules) {
    for (DurationMs jitter :
         {DurationMs{0}, DurationMs{1}, kMaxJitterMs, kMaxJitterMs + 1, kMaxInt}) {
      const Schedule schedule = with_jitter(base, jitter);
      auto series = SlotSeries::compile(schedule, kId);
      const std::string what = std::string(schedule_type_name(schedule.type)) + " every " +
                               std::to_string(schedule.every_ms) + " at " +
                               std::to_string(schedule.at) + " '" + schedule.expression + "' " +
                               schedule.timezone + " jitter " + std::to_string(jitter);
      if (!series) {
        EXPECT_EQ(series.error().code, ErrorCode::kUsage) << what;
        continue;
      }
      ++compiled;
      for (TimeMs from : extreme_starts()) {
        expect_well_behaved(*series, from, what + " from " + std::to_string(from));
      }
    }
  }
  EXPECT_GT(compiled, 50);
}

TEST(LimitsProperty, ACronNear9999EndsWithNoNextSlot) {
  Schedule yearly;
  yearly.type = ScheduleType::kCron;
  yearly.expression = "0 0 1 1 *";
  yearly.timezone = "UTC";
  auto series = SlotSeries::compile(yearly, kId);
  ASSERT_TRUE(series.ok());
  auto preview = series->preview(testing::at("9997-06-01T00:00:00Z"), 5);
  ASSERT_TRUE(preview.ok());
  EXPECT_EQ(*preview, (std::vector<TimeMs>{testing::at("9998-01-01T00:00:00Z"),
                                           testing::at("9999-01-01T00:00:00Z")}));
  auto after = series->following(testing::at("9999-01-01T00:00:00Z"));
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after->has_value());
}

TEST(LimitsProperty, AnIntervalNear9999EndsWithNoNextSlot) {
  Schedule daily;
  daily.type = ScheduleType::kInterval;
  daily.every_ms = kMaxIntervalMs;
  auto series = SlotSeries::compile(daily, kId);
  ASSERT_TRUE(series.ok());
  auto preview = series->preview(testing::at("9998-01-01T00:00:00Z"), 5);
  ASSERT_TRUE(preview.ok());
  EXPECT_EQ(preview->size(), 1u);
  EXPECT_EQ(*series->initial(kLatestTime), std::nullopt);
}

// Planning at the end of 9999 stays within the years and ends.
TEST(LimitsProperty, PlanningNear9999StaysWithinTheYears) {
  std::vector<Schedule> schedules;
  for (DurationMs every : {DurationMs{1000}, kMsPerDay, kMaxIntervalMs}) {
    Schedule interval;
    interval.type = ScheduleType::kInterval;
    interval.every_ms = every;
    schedules.push_back(interval);
  }
  for (const char* expression : {"* * * * *", "0 0 1 1 *", "59 23 31 12 *"}) {
    Schedule cron;
    cron.type = ScheduleType::kCron;
    cron.expression = expression;
    cron.timezone = "UTC";
    schedules.push_back(cron);
  }
  for (const Schedule& schedule : schedules) {
    auto series = SlotSeries::compile(schedule, kId);
    ASSERT_TRUE(series.ok()) << series.error().message;
    for (CatchUpMode mode : {CatchUpMode::kLatest, CatchUpMode::kAll, CatchUpMode::kNone}) {
      CatchUpPolicy policy;
      policy.mode = mode;
      policy.window = kMaxCatchUpWindowMs;
      for (TimeMs watching_since : {kLatestTime - kMsPerDay, kLatestTime}) {
        PlanInput input;
        input.next_run_at = kLatestTime - kMsPerDay;
        input.now = kLatestTime;
        input.watching_since = watching_since;
        auto plan = plan_slots(*series, policy, input);
        ASSERT_TRUE(plan.ok()) << schedule.expression << ": " << plan.error().message;
        for (TimeMs slot : plan->run) EXPECT_LE(slot, kLatestTime);
        EXPECT_LE(plan->run.size(), size_t(kMaxSlotsPerPlan));
        EXPECT_LE(plan->next_slot.value_or(kLatestTime), kLatestTime);
      }
    }
  }
}

}  // namespace
}  // namespace orrery
