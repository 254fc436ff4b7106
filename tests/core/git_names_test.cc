#include "core/git_names.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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
  EXPECT_EQ(worker_branch("0123456789abcdef0123", "edit"), "orrery/0123456789ab/edit");
  EXPECT_TRUE(check_branch_name(worker_branch("0123456789abcdef", "step.1"), "b").ok());
  EXPECT_FALSE(check_branch_component("a..b", "id").ok());
  EXPECT_FALSE(check_branch_component("a.lock", "id").ok());
  EXPECT_FALSE(check_branch_component("a.", "id").ok());
  EXPECT_TRUE(check_branch_component("a.b-c_d", "id").ok());
}

}  // namespace
}  // namespace orrery
