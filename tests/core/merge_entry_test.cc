#include "core/merge_entry.h"

#include <gtest/gtest.h>

#include <string>

namespace orrery {
namespace {

using M = MergeState;

constexpr M kAll[] = {M::kWaiting, M::kReady, M::kMerged, M::kConflict, M::kRejected};

TEST(MergeEntryTest, StatesAndStrategiesHaveNamesThatParseBack) {
  for (M state : kAll) EXPECT_EQ(parse_merge_state(merge_state_name(state)).value(), state);
  for (MergeStrategy strategy :
       {MergeStrategy::kRebase, MergeStrategy::kMerge, MergeStrategy::kSquash}) {
    EXPECT_EQ(parse_merge_strategy(merge_strategy_name(strategy)).value(), strategy);
  }
  auto bad = parse_merge_strategy("octopus");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "invalid merge strategy 'octopus': expected rebase, merge, squash");
}

TEST(MergeEntryTest, OnlyTheHeadBeingVerifiedMergesAndMergedIsFinal) {
  for (M from : kAll) {
    EXPECT_EQ(legal_merge_transition(from, M::kMerged), from == M::kReady)
        << merge_state_name(from);
    EXPECT_FALSE(legal_merge_transition(M::kMerged, from));
    // Only the head being merged stays what it is: its driver records the
    // commit it is about to move the target to.
    EXPECT_EQ(legal_merge_transition(from, from), from == M::kReady) << merge_state_name(from);
  }
  // A person's retry puts a conflict or a rejection back in the queue.
  EXPECT_TRUE(legal_merge_transition(M::kConflict, M::kWaiting));
  EXPECT_TRUE(legal_merge_transition(M::kRejected, M::kWaiting));
  // A waiting entry can be dropped; a ready one goes back when its driver stops.
  EXPECT_TRUE(legal_merge_transition(M::kWaiting, M::kRejected));
  EXPECT_TRUE(legal_merge_transition(M::kReady, M::kWaiting));
  auto refused = check_merge_transition("e1", M::kMerged, M::kWaiting);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "queue entry e1 is merged, which is final");
}

TEST(MergeEntryTest, AVerificationCommandIsNeverEmptyAndIsOneLine) {
  EXPECT_TRUE(check_verify_command("make test", "--verify").ok());
  EXPECT_TRUE(check_verify_command("none", "--verify").ok());
  EXPECT_TRUE(check_verify_command("ctest\t-j2", "--verify").ok());
  for (const std::string& bad :
       {std::string(), std::string("   "), std::string("\t"), std::string("make\ntest"),
        std::string("make\x1b[2Jtest"), std::string("a\x7f"), std::string("\xff\xfe"),
        std::string(kMaxVerifyCommandBytes + 1, 'x')}) {
    auto refused = check_verify_command(bad, "--verify");
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
    EXPECT_EQ(refused.error().message.rfind("--verify", 0), 0u) << refused.error().message;
  }
  EXPECT_NE(check_verify_command("", "--verify").error().message.find("'none'"), std::string::npos);
}

}  // namespace
}  // namespace orrery
