#include "core/trigger_overlap.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace orrery {
namespace {

constexpr OverlapPolicy kPolicies[] = {OverlapPolicy::kSkip, OverlapPolicy::kQueue,
                                       OverlapPolicy::kAllow, OverlapPolicy::kReplace};

// Every state a manual trigger can meet: each policy, with and without
// --force and --wait, no, one or two runs in progress, a queued run or none,
// a live daemon or none.
std::vector<ManualTrigger> every_state() {
  const std::vector<std::vector<std::string>> running_sets = {{}, {"r1"}, {"r1", "r2"}};
  const std::vector<std::optional<std::string>> queued_sets = {std::nullopt, "q1"};
  std::vector<ManualTrigger> states;
  for (OverlapPolicy overlap : kPolicies) {
    for (bool force : {false, true}) {
      for (bool wait : {false, true}) {
        for (const auto& running : running_sets) {
          for (const auto& queued : queued_sets) {
            for (bool daemon_live : {false, true}) {
              states.push_back({"nightly", overlap, force, wait, running, queued, daemon_live});
            }
          }
        }
      }
    }
  }
  return states;
}

std::string describe(const ManualTrigger& t) {
  return std::string(overlap_name(t.overlap)) + (t.force ? " force" : "") +
         (t.wait ? " wait" : "") + " running=" + std::to_string(t.running.size()) +
         (t.queued ? " queued" : "") + (t.daemon_live ? " daemon" : "");
}

TEST(TriggerOverlap, CoversEveryPolicyAndState) { EXPECT_EQ(every_state().size(), 4u * 48u); }

TEST(TriggerOverlap, ForceAllowOrNothingInProgressRunsNow) {
  for (const ManualTrigger& t : every_state()) {
    if (!t.force && t.overlap != OverlapPolicy::kAllow && !t.running.empty()) continue;
    auto action = decide_trigger(t);
    ASSERT_TRUE(action.ok()) << describe(t) << ": " << action.error().message;
    EXPECT_EQ(*action, TriggerAction::kRunNow) << describe(t);
  }
}

TEST(TriggerOverlap, SkipRefusesNamingTheRunInProgress) {
  for (const ManualTrigger& t : every_state()) {
    if (t.force || t.overlap != OverlapPolicy::kSkip || t.running.empty()) continue;
    auto action = decide_trigger(t);
    ASSERT_FALSE(action.ok()) << describe(t);
    EXPECT_EQ(action.error().code, ErrorCode::kConflict);
    EXPECT_EQ(action.error().message,
              "loop nightly has a run in progress (r1); --force runs anyway");
  }
}

TEST(TriggerOverlap, ReplaceStopsTheRunsInProgress) {
  for (const ManualTrigger& t : every_state()) {
    if (t.force || t.overlap != OverlapPolicy::kReplace || t.running.empty()) continue;
    auto action = decide_trigger(t);
    ASSERT_TRUE(action.ok()) << describe(t);
    EXPECT_EQ(*action, TriggerAction::kReplace) << describe(t);
  }
}

TEST(TriggerOverlap, QueueHoldsOneQueuedRunAndNeedsADaemonToWait) {
  for (const ManualTrigger& t : every_state()) {
    if (t.force || t.overlap != OverlapPolicy::kQueue || t.running.empty()) continue;
    auto action = decide_trigger(t);
    if (t.queued) {
      ASSERT_FALSE(action.ok()) << describe(t);
      EXPECT_EQ(action.error().code, ErrorCode::kConflict);
      EXPECT_EQ(action.error().message,
                "loop nightly already holds a queued run (q1) behind its run in progress (r1); "
                "--force runs anyway");
    } else if (t.wait && !t.daemon_live) {
      ASSERT_FALSE(action.ok()) << describe(t);
      EXPECT_EQ(action.error().code, ErrorCode::kConflict);
      EXPECT_EQ(action.error().message,
                "loop nightly has a run in progress (r1) and no daemon is running to start a "
                "queued run after it; start one (orrery daemon), or use --force to run now");
    } else {
      ASSERT_TRUE(action.ok()) << describe(t) << ": " << action.error().message;
      EXPECT_EQ(*action, TriggerAction::kQueue) << describe(t);
    }
  }
}

// What is not read (the queued run, the daemon lease) does not change a
// decision that does not need it.
TEST(TriggerOverlap, UnreadFactsDoNotMatter) {
  for (const ManualTrigger& t : every_state()) {
    if (t.overlap == OverlapPolicy::kQueue && !t.force && !t.running.empty()) continue;
    ManualTrigger plain = t;
    plain.queued.reset();
    plain.daemon_live = false;
    auto action = decide_trigger(t);
    auto expected = decide_trigger(plain);
    ASSERT_EQ(action.ok(), expected.ok()) << describe(t);
    if (action.ok()) {
      EXPECT_EQ(*action, *expected) << describe(t);
    } else {
      EXPECT_EQ(action.error().message, expected.error().message) << describe(t);
    }
  }
}

}  // namespace
}  // namespace orrery
