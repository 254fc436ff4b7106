// libFuzzer target: parse_time and format_time.
//
// Each input is parsed with a fixed now, in UTC and in a named zone with DST.
// Checked (time.h): a parsed instant lies in the years 1970-9999 (UTC), and
// format_time of it parses back to the same instant.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/civil.h"
#include "core/time.h"
#include "core/timezone.h"

namespace {

using orrery::TimeMs;
using orrery::TimeZone;

constexpr TimeMs kMsPerDay = 86'400'000;
constexpr TimeMs kNow = 1'772'323'200'000;  // 2026-03-01T00:00:00Z

const TimeZone& named_zone() {
  static const TimeZone zone = [] {
    auto found = TimeZone::named("Europe/Berlin");
    if (!found) __builtin_trap();  // tzdata missing
    return *found;
  }();
  return zone;
}

void check(std::string_view text, const TimeZone& zone) {
  static const TimeMs earliest = orrery::days_from_civil({orrery::kMinYear, 1, 1}) * kMsPerDay;
  static const TimeMs latest = orrery::days_from_civil({orrery::kMaxYear + 1, 1, 1}) * kMsPerDay;
  auto parsed = orrery::parse_time(text, kNow, zone);
  if (!parsed) return;
  if (*parsed < earliest || *parsed >= latest) __builtin_trap();
  const std::string formatted = orrery::format_time(*parsed);
  // Formatted with Z, so the zone given must not matter.
  for (const TimeZone* other : {&zone, &named_zone()}) {
    auto again = orrery::parse_time(formatted, kNow, *other);
    if (!again || *again != *parsed) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  if (size > 256) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check(text, TimeZone::utc());
  check(text, named_zone());
  return 0;
}
