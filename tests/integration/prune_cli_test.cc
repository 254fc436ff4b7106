// `orrery prune` from the outside: its criteria and its JSON. Which runs it
// removes is the store's behaviour, covered by the conformance suite.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "run_binary.h"

namespace orrery {
namespace {

class PruneCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "orrery-prune-XXXXXX").string();
    home_ = mkdtemp(pattern.data());
  }
  void TearDown() override { std::filesystem::remove_all(home_); }
  RunResult prune(std::vector<std::string> args) {
    args.insert(args.begin(), {"--home", home_, "prune"});
    return run_orrery(args);
  }
  std::string home_;
};

TEST_F(PruneCli, NeedsACriterion) {
  const RunResult result = prune({});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, "orrery: prune needs --older-than DURATION and/or --keep N\n");
  EXPECT_EQ(result.out, "");
}

TEST_F(PruneCli, RejectsABadAge) {
  const RunResult result = prune({"--older-than", "forever"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--older-than: invalid duration 'forever'"), std::string::npos);
}

TEST_F(PruneCli, DryRunReportsACountAsJson) {
  const RunResult result = prune({"--keep", "3", "--dry-run", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["dry_run"], true);
  EXPECT_EQ(json["runs"], 0);
}

}  // namespace
}  // namespace orrery
