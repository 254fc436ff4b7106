// libFuzzer target: cron expressions (CronSchedule::parse, next_after,
// latest_before).
//
// Input: the cron expression up to the first '\n' (or all of it); the bytes
// after the '\n' give the start instant (when there are none, a hash of the
// whole input does). The first byte picks one of a few time zones; every
// expression is also tried in UTC. Checked (cron.h): next > start,
// previous < start, and no fire instant strictly between start and either,
// seen from the other direction. The searches are bounded (8 years), so a hang
// is a bug too (run-fuzzers passes -timeout).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/civil.h"
#include "core/cron.h"
#include "core/timezone.h"

namespace {

using orrery::CronSchedule;
using orrery::TimeMs;
using orrery::TimeZone;

constexpr TimeMs kMsPerDay = 86'400'000;

// Zones with unusual rules: DST of 30 minutes, negative DST, skipped days,
// odd offsets, no DST at all.
const char* const kZoneNames[] = {"America/New_York", "Europe/Berlin",   "Australia/Lord_Howe",
                                  "Pacific/Apia",     "Asia/Kolkata",    "Europe/Dublin",
                                  "America/Santiago", "Pacific/Chatham", "Africa/Casablanca"};

const std::vector<TimeZone>& zones() {
  static const std::vector<TimeZone> loaded = [] {
    std::vector<TimeZone> result;
    for (const char* name : kZoneNames) {
      auto zone = TimeZone::named(name);
      if (!zone) __builtin_trap();  // tzdata missing: the target would test nothing
      result.push_back(*zone);
    }
    return result;
  }();
  return loaded;
}

std::uint64_t fnv1a(const std::uint8_t* data, size_t size) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 0x100000001b3ULL;
  return hash;
}

void check(std::string_view expression, const TimeZone& zone, TimeMs start) {
  auto schedule = CronSchedule::parse(expression, zone);
  if (!schedule) return;
  auto next = schedule->next_after(start);
  if (next) {
    if (*next <= start) __builtin_trap();
    if (*next - start > orrery::kCronSearchHorizon) __builtin_trap();
    // Nothing fires in (start, next): the last fire before next is at or
    // before start.
    auto back = schedule->latest_before(*next);
    if (back && *back > start) __builtin_trap();
  }
  auto previous = schedule->latest_before(start);
  if (previous) {
    if (*previous >= start) __builtin_trap();
    if (start - *previous > orrery::kCronSearchHorizon) __builtin_trap();
    // Nothing fires in (previous, start).
    auto forward = schedule->next_after(*previous);
    if (forward && *forward < start) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  if (size > 256) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string_view expression = input.substr(0, newline);

  std::uint64_t seed = 0;
  if (newline != std::string_view::npos && newline + 1 < size) {
    for (size_t i = newline + 1; i < size && i < newline + 9; ++i) seed = seed << 8 | data[i];
  } else {
    seed = fnv1a(data, size);
  }
  static const TimeMs earliest = orrery::days_from_civil({1990, 1, 1}) * kMsPerDay;
  static const TimeMs latest = orrery::days_from_civil({2101, 1, 1}) * kMsPerDay;
  const TimeMs start = earliest + TimeMs(seed % std::uint64_t(latest - earliest));

  const std::vector<TimeZone>& all = zones();
  check(expression, TimeZone::utc(), start);
  if (size > 0) check(expression, all[data[0] % all.size()], start);
  return 0;
}
