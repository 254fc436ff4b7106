#include "core/timezone.h"

#include <date/tz.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>

#include "core/civil.h"

namespace orrery {
namespace {

constexpr TimeMs kMsPerSecond = 1000;

// The tz library covers the years -32767 to 32767; its first and last
// segments end there. Ours go on to kEarliestInstant and kLatestInstant.
std::int64_t library_limit_seconds(date::year year) {
  return date::sys_days{year / 1 / 1}.time_since_epoch().count() * std::int64_t{86'400};
}
const std::int64_t kLibraryMinSeconds = library_limit_seconds(date::year::min()) + 86'400;
const std::int64_t kLibraryMaxSeconds = library_limit_seconds(date::year::max()) - 86'400;

TimeMs segment_bound(date::sys_seconds bound) {
  const std::int64_t seconds = bound.time_since_epoch().count();
  if (seconds <= kLibraryMinSeconds) return kEarliestInstant;
  if (seconds >= kLibraryMaxSeconds) return kLatestInstant;
  return seconds * kMsPerSecond;
}

bool is_utc_name(std::string_view name) {
  return name == "UTC" || name == "Etc/UTC" || name == "Z" || name == "Etc/Zulu" ||
         name == "Zulu" || name == "Etc/UCT" || name == "UCT" || name == "Universal" ||
         name == "Etc/Universal" || name == "GMT" || name == "Etc/GMT";
}

// date::locate_zone throws for unknown names; this is the one place it may.
const date::time_zone* find_zone(std::string_view name) {
  try {
    return date::locate_zone(name);
  } catch (const std::exception&) {
    return nullptr;
  }
}

}  // namespace

TimeZone TimeZone::utc() { return TimeZone("UTC", nullptr); }

Result<TimeZone> TimeZone::named(std::string_view name) {
  if (is_utc_name(name)) return TimeZone(std::string(name), nullptr);
  if (name.empty() || name.size() > 64 || name.find("..") != std::string_view::npos) {
    return usage_error("unknown time zone '" + std::string(name) +
                       "': expected an IANA name such as Europe/Berlin or UTC");
  }
  const date::time_zone* zone = find_zone(name);
  if (zone == nullptr) {
    return usage_error("unknown time zone '" + std::string(name) +
                       "': expected an IANA name such as Europe/Berlin or UTC");
  }
  return TimeZone(std::string(name), zone);
}

// The zone /etc/localtime links to (…/zoneinfo/NAME), read without loading
// the time zone database, which walks the whole zoneinfo tree: a command on
// a UTC machine never pays for it.
static std::optional<std::string> linked_local_zone() {
  std::error_code error;
  const std::string target = std::filesystem::read_symlink("/etc/localtime", error).string();
  const size_t at = target.rfind("zoneinfo/");
  if (error || at == std::string::npos) return std::nullopt;
  return target.substr(at + std::string_view("zoneinfo/").size());
}

TimeZone TimeZone::local() {
  if (const char* tz = std::getenv("TZ"); tz != nullptr && *tz != '\0') {
    std::string_view name(tz);
    if (name.front() == ':') name.remove_prefix(1);
    if (auto zone = named(name)) return *zone;
  }
  if (const auto linked = linked_local_zone(); linked && is_utc_name(*linked)) return utc();
  try {
    const date::time_zone* zone = date::current_zone();
    if (zone != nullptr) {
      if (is_utc_name(zone->name())) return utc();
      return TimeZone(zone->name(), zone);
    }
  } catch (const std::exception&) {
  }
  return utc();
}

ZoneSegment TimeZone::segment_at(TimeMs instant) const {
  if (zone_ == nullptr) return {kEarliestInstant, kLatestInstant, 0};
  // Beyond the library's years its first or last segment goes on.
  const std::int64_t seconds =
      std::clamp(floor_div(instant, kMsPerSecond), kLibraryMinSeconds, kLibraryMaxSeconds);
  const date::sys_info info = zone_->get_info(date::sys_seconds{std::chrono::seconds(seconds)});
  return {segment_bound(info.begin), segment_bound(info.end), info.offset.count() * kMsPerSecond};
}

TimeMs TimeZone::from_wall(LocalMs wall) const {
  if (zone_ == nullptr) return wall;
  // Any instant with this wall time lies within a day of wall - offset; look
  // at the segment there and its neighbours.
  const ZoneSegment near = segment_at(wall - offset_at(wall));
  const ZoneSegment before = segment_at(near.begin - 1);
  const ZoneSegment after = segment_at(near.end);
  for (const ZoneSegment& segment : {before, near, after}) {
    const TimeMs instant = wall - segment.offset;
    if (instant >= segment.begin && instant < segment.end) return instant;
  }
  // In a gap: the first instant after it is the begin of the later segment.
  return wall - near.offset < near.begin ? near.begin : after.begin;
}

}  // namespace orrery
