// EventCursor (src/core/event_cursor.h): contiguous ids are delivered at
// once, a gap is held for hold_ms and then skipped, nothing is delivered twice.
#include "core/event_cursor.h"

#include <gtest/gtest.h>

#include <numeric>

namespace orrery {
namespace {

constexpr TimeMs kNow = 1'780'000'000'000;

std::vector<std::int64_t> ids(std::int64_t from, std::int64_t to) {
  std::vector<std::int64_t> list(size_t(to - from + 1));
  std::iota(list.begin(), list.end(), from);
  return list;
}

TEST(EventCursor, ContiguousIdsAreDeliveredAtOnceWhateverTheHold) {
  for (const DurationMs hold : {0, 1, 5000, 3'600'000}) {
    EventCursor cursor(10, hold);
    EXPECT_EQ(cursor.deliverable(ids(11, 20), kNow), 10u);
    EXPECT_EQ(cursor.after(), 20);
    EXPECT_EQ(cursor.deliverable({}, kNow), 0u);
    EXPECT_EQ(cursor.after(), 20);
  }
}

TEST(EventCursor, AGapIsHeldForTheHoldThenSkipped) {
  EventCursor cursor(10, 5000);
  // 11 and 12 follow; 13 is missing.
  EXPECT_EQ(cursor.deliverable({11, 12, 14, 15}, kNow), 2u);
  EXPECT_EQ(cursor.after(), 12);
  EXPECT_EQ(cursor.deliverable({14, 15}, kNow + 4999), 0u);
  EXPECT_EQ(cursor.after(), 12);
  EXPECT_EQ(cursor.deliverable({14, 15}, kNow + 5000), 2u);
  EXPECT_EQ(cursor.after(), 15);
}

TEST(EventCursor, AGapThatFillsIsDeliveredInOrder) {
  EventCursor cursor(0, 5000);
  EXPECT_EQ(cursor.deliverable({1, 3}, kNow), 1u);
  EXPECT_EQ(cursor.deliverable({2, 3}, kNow + 10), 2u);
  EXPECT_EQ(cursor.after(), 3);
  // A new gap is timed from when it is seen, not from the first one.
  EXPECT_EQ(cursor.deliverable({5}, kNow + 20'000), 0u);
  EXPECT_EQ(cursor.deliverable({5}, kNow + 24'999), 0u);
  EXPECT_EQ(cursor.deliverable({5}, kNow + 25'000), 1u);
}

TEST(EventCursor, WithoutAHoldEveryGapIsSkippedAtOnce) {
  EventCursor cursor(0, 0);
  EXPECT_EQ(cursor.deliverable({5, 9, 100, 101}, kNow), 4u);
  EXPECT_EQ(cursor.after(), 101);
}

TEST(EventCursor, GapsOfEverySizeAndPlaceAreHeldThenSkipped) {
  for (std::int64_t gap = 1; gap <= 5; ++gap) {
    for (std::int64_t before = 0; before <= 3; ++before) {
      EventCursor cursor(0, 100);
      std::vector<std::int64_t> read = ids(1, before);
      const std::vector<std::int64_t> after_gap = ids(before + gap + 1, before + gap + 3);
      read.insert(read.end(), after_gap.begin(), after_gap.end());
      EXPECT_EQ(cursor.deliverable(read, kNow), size_t(before));
      EXPECT_EQ(cursor.deliverable(after_gap, kNow + 99), 0u);
      EXPECT_EQ(cursor.deliverable(after_gap, kNow + 100), 3u);
      EXPECT_EQ(cursor.after(), before + gap + 3);
    }
  }
}

TEST(EventCursor, IdsAtOrBelowTheCursorAreNeverDeliveredAgain) {
  EventCursor cursor(10, 0);
  EXPECT_EQ(cursor.deliverable({9, 10, 11}, kNow), 0u);
  EXPECT_EQ(cursor.after(), 10);
  EXPECT_EQ(cursor.deliverable({11, 11}, kNow), 1u);
  EXPECT_EQ(cursor.after(), 11);
}

}  // namespace
}  // namespace orrery
