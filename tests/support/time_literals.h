// Test helpers: instants from ISO 8601 literals, and back, for readable
// assertions. A literal that does not parse fails the calling test.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/time.h"
#include "core/timezone.h"

namespace orrery::testing {

inline TimeMs at(const std::string& iso) {
  auto parsed = parse_time(iso, 0, TimeZone::utc());
  EXPECT_TRUE(parsed.ok()) << iso;
  return parsed ? *parsed : 0;
}

inline std::string iso(TimeMs time) { return format_time(time); }

inline TimeZone zone(const std::string& name) {
  auto found = TimeZone::named(name);
  EXPECT_TRUE(found.ok()) << name;
  return found ? *found : TimeZone::utc();
}

}  // namespace orrery::testing
