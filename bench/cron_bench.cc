// Micro-benchmarks of CronSchedule::next_after (docs/benchmarks.md).
//
// cron_next/"EXPR"/ZONE: next_after calls per second. Each iteration starts
// from the previous result plus a pseudo-random offset of up to 4 hours, so
// the searches differ and the branch predictor cannot memorise one path; when
// the start passes 2035 it wraps back to 2026.
//
// naive_next/"EXPR"/UTC: the same loop over a minute-by-minute search that
// checks each minute against the CronFields bit sets (the approach of the
// reference implementation), as a baseline measured in the same run.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "core/civil.h"
#include "core/cron.h"
#include "core/cron_fields.h"
#include "core/timezone.h"

namespace orrery {
namespace {

constexpr TimeMs kMsPerMinute = 60'000;
constexpr TimeMs kMsPerDay = 86'400'000;
constexpr TimeMs kMaxOffset = 4 * 3'600'000;  // up to 4 hours between calls

const TimeMs kStart = days_from_civil({2026, 1, 1}) * kMsPerDay;
const TimeMs kWrap = days_from_civil({2035, 1, 1}) * kMsPerDay;

const char* const kExpressions[] = {"*/5 * * * *", "0 3 * * *",     "0 9 * * 1-5",
                                    "0 0 1 * *",   "30 4 1,15 * 5", "0 0 29 2 *"};
const char* const kZones[] = {"UTC", "America/New_York"};
const char* const kNaiveExpressions[] = {"*/5 * * * *", "0 0 1 * *"};

// xorshift64: cheap, deterministic offsets in [0, kMaxOffset).
struct Offsets {
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  TimeMs next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return TimeMs(state % std::uint64_t(kMaxOffset));
  }
};

CronSchedule parse_or_die(const std::string& expression, const std::string& zone_name) {
  auto zone = TimeZone::named(zone_name);
  if (!zone) {
    std::fprintf(stderr, "%s\n", zone.error().message.c_str());
    std::exit(1);
  }
  auto schedule = CronSchedule::parse(expression, *zone);
  if (!schedule) {
    std::fprintf(stderr, "%s\n", schedule.error().message.c_str());
    std::exit(1);
  }
  return *schedule;
}

// The driver shared by both searches: `search(after)` returns the next fire
// instant or nullopt.
template <typename Search>
void run(benchmark::State& state, const Search& search) {
  Offsets offsets;
  TimeMs after = kStart;
  for (auto _ : state) {
    const std::optional<TimeMs> next = search(after);
    if (!next) {
      state.SkipWithError("no fire time found");
      break;
    }
    benchmark::DoNotOptimize(*next);
    after = *next + offsets.next();
    if (after >= kWrap) after = kStart + (after - kWrap);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_CronNext(benchmark::State& state, const std::string& expression, const std::string& zone) {
  const CronSchedule schedule = parse_or_die(expression, zone);
  run(state, [&](TimeMs after) -> std::optional<TimeMs> {
    auto next = schedule.next_after(after);
    if (!next) return std::nullopt;
    return *next;
  });
}

// One wall minute (UTC) checked field by field, as a minute-by-minute search
// does: the bit sets of the fields, the date from civil_from_days, and the
// Vixie OR rule for the two day fields.
bool naive_matches(const CronFields& cron, std::int64_t minute) {
  const std::int64_t days = floor_div(minute, 1440);
  const int minute_of_day = int(minute - days * 1440);
  if (!(cron.minutes >> (minute_of_day % 60) & 1)) return false;
  if (!(cron.hours >> (minute_of_day / 60) & 1)) return false;
  const CivilDate date = civil_from_days(days);
  if (!(cron.months >> date.month & 1)) return false;
  const bool day_of_month = cron.days >> date.day & 1;
  const bool day_of_week = cron.weekdays >> weekday_from_days(days) & 1;
  if (cron.day_of_month_star || cron.day_of_week_star) return day_of_month && day_of_week;
  return day_of_month || day_of_week;
}

void BM_NaiveNext(benchmark::State& state, const std::string& expression) {
  const CronSchedule schedule = parse_or_die(expression, "UTC");
  const CronFields& cron = schedule.fields();
  run(state, [&](TimeMs after) -> std::optional<TimeMs> {
    const std::int64_t first = floor_div(after, kMsPerMinute) + 1;
    const std::int64_t limit = first + kCronSearchHorizon / kMsPerMinute;
    for (std::int64_t minute = first; minute < limit; ++minute) {
      if (naive_matches(cron, minute)) return minute * kMsPerMinute;
    }
    return std::nullopt;
  });
}

void register_benchmarks() {
  for (const char* expression : kExpressions) {
    for (const char* zone : kZones) {
      const std::string name = std::string("cron_next/\"") + expression + "\"/" + zone;
      benchmark::RegisterBenchmark(name.c_str(), BM_CronNext, std::string(expression),
                                   std::string(zone));
    }
  }
  for (const char* expression : kNaiveExpressions) {
    const std::string name = std::string("naive_next/\"") + expression + "\"/UTC";
    benchmark::RegisterBenchmark(name.c_str(), BM_NaiveNext, std::string(expression));
  }
}

}  // namespace
}  // namespace orrery

int main(int argc, char** argv) {
  orrery::register_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
