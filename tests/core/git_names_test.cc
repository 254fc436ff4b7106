#include "core/git_names.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/ids.h"
#include "core/workflow.h"

namespace orrery {
namespace {

TEST(GitNamesTest, BranchNamesGitAcceptsPass) {
  for (const std::string name : {"main", "release/1.2", "feature/a-b_c", "orrery/abc/step.1", "x",
                                 "a.b", "deep/er/and/deeper", "ünïcode"}) {
    EXPECT_TRUE(check_branch_name(name, "target_branch").ok()) << name;
  }
}

TEST(GitNamesTest, EveryRuleOfCheckRefFormatRefusesWithTheName) {
  const std::vector<std::string> refused = {"",
                                            "-main",
                                            "@",
                                            "HEAD",
                                            "a..b",
                                            ".hidden",
                                            "a/.b",
                                            "x.lock",
                                            "a/b.lock/c",
                                            "a/",
                                            "/a",
                                            "a//b",
                                            "end.",
                                            "a b",
                                            "a~1",
                                            "a^",
                                            "a:b",
                                            "a?",
                                            "a*",
                                            "a[b",
                                            "a\\b",
                                            "a@{1}",
                                            std::string("a\x01"),
                                            std::string("a\x7f"),
                                            std::string("\xff"),
                                            std::string(kMaxBranchBytes + 1, 'a')};
  for (const std::string& name : refused) {
    auto checked = check_branch_name(name, "target_branch");
    ASSERT_FALSE(checked.ok()) << name;
    EXPECT_EQ(checked.error().code, ErrorCode::kUsage);
    EXPECT_EQ(checked.error().message.rfind("target_branch", 0), 0u) << checked.error().message;
  }
  // Every printable ASCII character alone: accepted exactly when git would.
  for (char c = 0x21; c < 0x7f; ++c) {
    const std::string name = std::string("a") + c + "b";
    const bool forbidden = std::string("~^:?*[\\").find(c) != std::string::npos;
    EXPECT_EQ(check_branch_name(name, "b").ok(), !forbidden) << name;
  }
}

TEST(GitNamesTest, ARevisionCanNeverBeReadAsAnOption) {
  EXPECT_TRUE(check_revision("HEAD~2", "base").ok());
  EXPECT_TRUE(check_revision("v1.0^{commit}", "base").ok());
  EXPECT_TRUE(check_revision(std::string(40, 'a'), "base").ok());
  for (const std::string bad : {"", "-n", "--exec=sh", "a b", "a\nb", "\x01"}) {
    EXPECT_FALSE(check_revision(bad, "base").ok()) << bad;
  }
}

TEST(GitNamesTest, AWorkerBranchIsNamedByItsRunAndStep) {
  const std::string run = "0123456789abcdef0123456789abcdef";
  EXPECT_EQ(worker_branch(run, "edit"), "orrery/" + run + "/edit");
  EXPECT_TRUE(check_branch_name(worker_branch(run, std::string(kMaxStepIdBytes, 's')), "b").ok());
  EXPECT_FALSE(check_branch_component("a..b", "id").ok());
  EXPECT_FALSE(check_branch_component("a.lock", "id").ok());
  EXPECT_FALSE(check_branch_component("a.", "id").ok());
  EXPECT_TRUE(check_branch_component("a.b-c_d", "id").ok());
}

}  // namespace
}  // namespace orrery

namespace orrery {
namespace {

// Runs published in one transaction share their creation millisecond, the
// first 12 characters of their ids: every (run, step) pair of many such runs
// still names its own branch, and every name is a valid branch.
TEST(GitNamesTest, RunsMadeInOneMillisecondNameDistinctBranchesForEveryStep) {
  std::mt19937 random(7);
  std::set<std::string> branches;
  const std::vector<std::string> steps{"fix", "review", "a.b", "Fix", "x-1", "s_2"};
  constexpr int kRuns = 200;
  for (int i = 0; i < kRuns; ++i) {
    std::array<std::uint8_t, 10> bytes{};
    for (auto& byte : bytes) byte = static_cast<std::uint8_t>(random());
    const std::string run = make_id(1'780'000'000'000, bytes);
    for (const std::string& step : steps) {
      const std::string branch = worker_branch(run, step);
      EXPECT_TRUE(check_branch_name(branch, "branch").ok()) << branch;
      branches.insert(branch);
    }
  }
  EXPECT_EQ(branches.size(), size_t(kRuns) * steps.size());
}

}  // namespace
}  // namespace orrery
