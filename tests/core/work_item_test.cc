#include "core/work_item.h"

#include <gtest/gtest.h>

#include <vector>

namespace orrery {
namespace {

const std::vector<ItemStatus> kAll = {
    ItemStatus::kQueued,    ItemStatus::kDeferred, ItemStatus::kAdmitted,   ItemStatus::kRunning,
    ItemStatus::kSucceeded, ItemStatus::kFailed,   ItemStatus::kDeadLetter, ItemStatus::kCancelled,
};

TEST(WorkItem, EveryStatusNameParsesBackToItsStatus) {
  for (ItemStatus status : kAll) {
    auto parsed = parse_item_status(item_status_name(status));
    ASSERT_TRUE(parsed) << item_status_name(status);
    EXPECT_EQ(*parsed, status);
  }
  auto bad = parse_item_status("dead-letter");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("dead-letter"), std::string::npos);
  EXPECT_NE(bad.error().message.find("dead_letter"), std::string::npos) << bad.error().message;
}

TEST(WorkItem, EachStatusIsInExactlyOneOfWaitingHoldingAndResting) {
  for (ItemStatus status : kAll) {
    const int classes = int(item_is_waiting(status)) + int(item_holds_capacity(status)) +
                        int(item_is_requeueable(status));
    EXPECT_EQ(classes, 1) << item_status_name(status);
  }
  EXPECT_TRUE(item_is_waiting(ItemStatus::kDeferred));
  EXPECT_TRUE(item_holds_capacity(ItemStatus::kAdmitted));
  EXPECT_TRUE(item_is_requeueable(ItemStatus::kDeadLetter));
}

TEST(WorkItem, AnEnqueueRefreshesOnlyAWaitingItem) {
  EXPECT_EQ(enqueue_outcome(std::nullopt), EnqueueOutcome::kCreated);
  for (ItemStatus status : kAll) {
    EXPECT_EQ(enqueue_outcome(status),
              item_is_waiting(status) ? EnqueueOutcome::kRefreshed : EnqueueOutcome::kDuplicate)
        << item_status_name(status);
  }
}

TEST(WorkItem, ReasonsAppendWithASemicolon) {
  EXPECT_EQ(append_reason("", ""), "");
  EXPECT_EQ(append_reason("", "b"), "b");
  EXPECT_EQ(append_reason("a", ""), "a");
  EXPECT_EQ(append_reason("a", "b"), "a; b");
  EXPECT_EQ(append_reason(append_reason("a", "b"), "c"), "a; b; c");
}

TEST(WorkItem, AFinishedRunMovesItsItemByItsStatusAndTheAttemptsLeft) {
  for (int max = 1; max <= 5; ++max) {
    for (int attempts = 1; attempts <= max + 1; ++attempts) {
      EXPECT_EQ(item_status_after_run(WorkflowRunStatus::kSucceeded, attempts, max),
                ItemStatus::kSucceeded);
      EXPECT_EQ(item_status_after_run(WorkflowRunStatus::kCancelled, attempts, max),
                ItemStatus::kCancelled);
      EXPECT_EQ(item_status_after_run(WorkflowRunStatus::kFailed, attempts, max),
                attempts < max ? ItemStatus::kFailed : ItemStatus::kDeadLetter)
          << attempts << " of " << max;
    }
  }
}

TEST(WorkItem, PriorityAgesByOneForEveryAgingPeriodWaited) {
  EXPECT_EQ(effective_priority(5, 1000, 1000, 0), 5);
  EXPECT_EQ(effective_priority(5, 1000, 100'000, 0), 5) << "no aging";
  for (std::int64_t waited = 0; waited < 10'000; waited += 250) {
    EXPECT_EQ(effective_priority(-3, 1000, 1000 + waited, 1000), -3 + waited / 1000) << waited;
  }
  EXPECT_EQ(effective_priority(7, 5000, 1000, 1000), 7) << "a clock that went back lowers nothing";
  EXPECT_EQ(effective_priority(kMaxItemPriority, 0, INT64_MAX / 2, 1), kMaxEffectivePriority);
  EXPECT_EQ(effective_priority(kMaxItemPriority * 10, 0, 0, 0), kMaxItemPriority);
  EXPECT_EQ(effective_priority(-kMaxItemPriority * 10, 0, 0, 0), -kMaxItemPriority);
}

}  // namespace
}  // namespace orrery
