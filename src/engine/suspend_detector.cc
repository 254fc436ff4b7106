#include "engine/suspend_detector.h"

#include <time.h>

namespace orrery {
namespace {

std::int64_t read_ms(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return std::int64_t(now.tv_sec) * 1000 + now.tv_nsec / 1'000'000;
}

}  // namespace

ClockPair read_clock_pair() { return {read_ms(CLOCK_BOOTTIME), read_ms(CLOCK_MONOTONIC)}; }

DurationMs SuspendDetector::slept(ClockPair now) {
  const std::int64_t offset = offset_of(now);
  const DurationMs grown = offset - offset_;
  if (grown < kSuspendThresholdMs) return 0;
  offset_ = offset;
  return grown;
}

}  // namespace orrery
