#include "engine/suspend_detector.h"

#include <gtest/gtest.h>

namespace orrery {
namespace {

TEST(SuspendDetector, NoSuspendWhileBothClocksAdvanceTogether) {
  SuspendDetector detector({10'000, 4'000});
  for (std::int64_t step : {0, 1, 100, 60'000, 3'600'000}) {
    EXPECT_EQ(detector.slept({10'000 + step, 4'000 + step}), 0) << step;
  }
}

TEST(SuspendDetector, ReadingJitterIsNotASuspend) {
  SuspendDetector detector({10'000, 4'000});
  for (std::int64_t jitter : {1, 2, 499}) {
    EXPECT_EQ(detector.slept({20'000 + jitter, 14'000}), 0) << jitter;
  }
}

TEST(SuspendDetector, BootTimeAheadOfMonotonicIsASuspendOfThatLength) {
  for (std::int64_t sleep : {500, 1'000, 90'000, 8 * 3'600'000}) {
    SuspendDetector detector({10'000, 4'000});
    EXPECT_EQ(detector.slept({10'000 + 5'000 + sleep, 4'000 + 5'000}), sleep) << sleep;
  }
}

TEST(SuspendDetector, EachSuspendIsReportedOnce) {
  SuspendDetector detector({0, 0});
  EXPECT_EQ(detector.slept({10'000, 1'000}), 9'000);
  EXPECT_EQ(detector.slept({11'000, 2'000}), 0);
  EXPECT_EQ(detector.slept({20'000, 3'000}), 8'000);
  EXPECT_EQ(detector.slept({21'000, 4'000}), 0);
}

TEST(SuspendDetector, TheSystemClocksShowNoSuspendRightNow) {
  SuspendDetector detector(read_clock_pair());
  EXPECT_EQ(detector.slept(read_clock_pair()), 0);
}

}  // namespace
}  // namespace orrery
