// Property test of CronSchedule against a brute-force oracle: for random
// valid expressions and start times, next(t) > t and fires, and no fire
// instant lies strictly between t and next(t) (checked minute by minute over
// a bounded window); likewise for latest_before.
//
// The oracle restates docs/scheduling.md directly: a wildcard job fires at every
// minute whose wall time matches; a fixed-time job fires at the first
// occurrence of a matching wall time, and at the first instant after a gap
// that swallowed a matching wall time.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/civil.h"
#include "core/cron.h"
#include "support/time_literals.h"

namespace orrery {
namespace {

constexpr TimeMs kMinute = 60'000;

// Independent of the calendar search: fields checked one by one.
bool wall_matches(const CronFields& cron, LocalMs wall) {
  const std::int64_t days = floor_div(wall, 86'400'000);
  const std::int64_t minute_of_day = floor_mod(wall, 86'400'000) / kMinute;
  const CivilDate date = civil_from_days(days);
  const int weekday = weekday_from_days(days);
  if (!(cron.minutes >> (minute_of_day % 60) & 1)) return false;
  if (!(cron.hours >> (minute_of_day / 60) & 1)) return false;
  if (!(cron.months >> date.month & 1)) return false;
  const bool dom = cron.days >> date.day & 1;
  const bool dow = cron.weekdays >> weekday & 1;
  if (cron.day_of_month_star || cron.day_of_week_star) return dom && dow;
  return dom || dow;
}

bool fires_at(const CronSchedule& cron, TimeMs instant) {
  const CronFields& fields = cron.fields();
  const TimeZone& zone = cron.zone();
  const ZoneSegment segment = zone.segment_at(instant);
  const LocalMs wall = instant + segment.offset;
  if (!fields.fixed_time()) return instant % kMinute == 0 && wall_matches(fields, wall);
  if (instant % kMinute == 0 && wall_matches(fields, wall)) {
    // Not a second occurrence: the same wall time did not exist just before.
    const ZoneSegment before = zone.segment_at(segment.begin - 1);
    const TimeMs earlier = wall - before.offset;
    const bool repeated = earlier < segment.begin && earlier >= before.begin;
    if (!repeated) return true;
  }
  if (instant != segment.begin) return false;
  const DurationMs previous_offset = zone.offset_at(instant - 1);
  for (LocalMs gap = instant + previous_offset; gap < wall; gap += kMinute) {
    if (wall_matches(fields, gap)) return true;
  }
  return false;
}

// A random field: '*', '*/n', a value, a range, a range with a step, or a list.
std::string random_field(std::mt19937_64& rng, int lo, int hi) {
  auto pick = [&](int a, int b) { return int(std::uniform_int_distribution<int>(a, b)(rng)); };
  switch (pick(0, 6)) {
    case 0:
    case 1:
      return "*";
    case 2:
      return "*/" + std::to_string(pick(1, std::max(1, (hi - lo) / 2)));
    case 3:
      return std::to_string(pick(lo, hi));
    case 4: {
      const int a = pick(lo, hi);
      return std::to_string(a) + "-" + std::to_string(pick(a, hi));
    }
    case 5: {
      const int a = pick(lo, hi);
      return std::to_string(a) + "-" + std::to_string(pick(a, hi)) + "/" +
             std::to_string(pick(1, 5));
    }
    default:
      return std::to_string(pick(lo, hi)) + "," + std::to_string(pick(lo, hi));
  }
}

std::string random_expression(std::mt19937_64& rng) {
  return random_field(rng, 0, 59) + " " + random_field(rng, 0, 23) + " " +
         random_field(rng, 1, 31) + " " + random_field(rng, 1, 12) + " " + random_field(rng, 0, 7);
}

// Whether any day within the search horizon after (or before) `start`
// matches the day and month fields: a search that gave up must not have
// missed one.
bool some_day_matches(const CronFields& cron, TimeMs start, int direction) {
  const std::int64_t first = floor_div(start, 86'400'000);
  const std::int64_t days = kCronSearchHorizon / 86'400'000 - 2;
  for (std::int64_t d = 1; d < days; ++d) {
    const std::int64_t day = first + direction * d;
    const CivilDate date = civil_from_days(day);
    const bool dom = cron.days >> date.day & 1;
    const bool dow = cron.weekdays >> weekday_from_days(day) & 1;
    const bool day_ok = cron.day_of_month_star || cron.day_of_week_star ? dom && dow : dom || dow;
    if (day_ok && (cron.months >> date.month & 1)) return true;
  }
  return false;
}

// Checks next and previous from `start`; the brute force looks at most
// `window` minutes away.
void check_around(const CronSchedule& cron, TimeMs start, int window) {
  SCOPED_TRACE(cron.expression() + " in " + cron.zone().name() + " from " + format_time(start));
  auto next = cron.next_after(start);
  if (!next) {  // legitimate when the fields meet less than once in 8 years
    EXPECT_NE(next.error().message.find("no fire time within 8 years"), std::string::npos);
    EXPECT_FALSE(some_day_matches(cron.fields(), start, +1)) << next.error().message;
    return;
  }
  EXPECT_GT(*next, start);
  EXPECT_TRUE(fires_at(cron, *next)) << "next " << format_time(*next) << " does not fire";
  const TimeMs first_minute = (start / kMinute + 1) * kMinute;
  for (TimeMs m = first_minute; m < *next && m < start + window * kMinute; m += kMinute) {
    ASSERT_FALSE(fires_at(cron, m))
        << format_time(m) << " fires before next " << format_time(*next);
  }
  auto previous = cron.latest_before(start);
  if (!previous) {
    EXPECT_FALSE(some_day_matches(cron.fields(), start, -1)) << previous.error().message;
    return;
  }
  EXPECT_LT(*previous, start);
  EXPECT_TRUE(fires_at(cron, *previous)) << "previous " << format_time(*previous);
  for (TimeMs m = (start - 1) / kMinute * kMinute; m > *previous && m > start - window * kMinute;
       m -= kMinute) {
    ASSERT_FALSE(fires_at(cron, m))
        << format_time(m) << " fires after previous " << format_time(*previous);
  }
}

TEST(CronProperty, RandomExpressionsInUtc) {
  std::mt19937_64 rng(20261129);
  const TimeMs lo = testing::at("2000-01-01T00:00:00Z");
  const TimeMs hi = testing::at("2036-01-01T00:00:00Z");
  int checked = 0;
  while (checked < 10'000) {
    auto cron = CronSchedule::parse(random_expression(rng), TimeZone::utc());
    if (!cron) continue;  // e.g. a day no listed month has
    const TimeMs start = std::uniform_int_distribution<TimeMs>(lo, hi)(rng);
    check_around(*cron, start, 1440);
    if (::testing::Test::HasFatalFailure()) return;
    ++checked;
  }
}

// Around DST transitions, where the fixed-time and wildcard rules differ.
TEST(CronProperty, RandomExpressionsAroundTransitions) {
  std::mt19937_64 rng(7);
  const char* zones[] = {"America/New_York", "Europe/Berlin", "Australia/Lord_Howe",
                         "America/Sao_Paulo"};
  for (const char* name : zones) {
    const TimeZone zone = testing::zone(name);
    // Collect the transitions of 2000-2035.
    std::vector<TimeMs> transitions;
    const TimeMs last = testing::at("2035-01-01T00:00:00Z");
    for (TimeMs t = zone.segment_at(testing::at("2000-01-01T00:00:00Z")).end; t < last;
         t = zone.segment_at(t).end) {
      transitions.push_back(t);
    }
    ASSERT_GT(transitions.size(), 10u) << name;
    int checked = 0;
    while (checked < 1'000) {
      auto cron = CronSchedule::parse(random_expression(rng), zone);
      if (!cron) continue;
      const TimeMs transition =
          transitions[std::uniform_int_distribution<size_t>(0, transitions.size() - 1)(rng)];
      const TimeMs start =
          transition + std::uniform_int_distribution<TimeMs>(-3 * 3'600'000, 3 * 3'600'000)(rng);
      check_around(*cron, start, 360);
      if (::testing::Test::HasFatalFailure()) return;
      ++checked;
    }
  }
}

}  // namespace
}  // namespace orrery
