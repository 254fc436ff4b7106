#include "core/step_worktree_spec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/workflow_spec.h"

namespace orrery {
namespace {

const std::string kBase = "/work/specs";

// A one-step workflow whose step has `fields` (YAML lines, indented).
Result<WorkflowSpec> spec_with(const std::string& fields, const std::string& id = "edit") {
  const std::string text = "name: w\nsteps:\n  - id: " + id +
                           "\n    target: {type: command, command: /bin/true}\n" + fields;
  return parse_workflow_spec(text, SpecFormat::kYaml, PathBase{kBase});
}

std::string error_of(const Result<WorkflowSpec>& parsed) {
  EXPECT_FALSE(parsed.ok());
  return parsed ? "" : parsed.error().message;
}

TEST(StepWorktreeSpecTest, AStepWithoutAWorktreeHasNone) {
  auto spec = spec_with("");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_FALSE(uses_worktree(spec->steps[0].worktree));
}

TEST(StepWorktreeSpecTest, EveryFieldIsReadAndRelativeRepoIsResolved) {
  auto spec = spec_with(
      "    worktree: auto\n    repo: ../repo\n    base: origin/main\n    commit: never\n"
      "    allowed_files: ['src/**', 'docs/*.md']\n    merge: queue\n    verify: make test\n"
      "    target_branch: release/1\n    merge_strategy: squash\n");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  const StepWorktree& w = spec->steps[0].worktree;
  EXPECT_EQ(w.mode, WorktreeMode::kAuto);
  EXPECT_EQ(w.repo, "/work/repo");
  EXPECT_EQ(w.base, "origin/main");
  EXPECT_EQ(w.commit, CommitMode::kNever);
  EXPECT_EQ(w.allowed_files, (std::vector<std::string>{"src/**", "docs/*.md"}));
  EXPECT_EQ(w.merge, MergeMode::kQueue);
  EXPECT_EQ(w.verify, "make test");
  EXPECT_EQ(w.target_branch, "release/1");
  EXPECT_EQ(w.strategy, MergeStrategy::kSquash);
  // Stored and read back: the same settings.
  auto decoded = decode_workflow_spec(encode_workflow_spec(*spec));
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  EXPECT_EQ(decoded->steps[0].worktree, w);
}

TEST(StepWorktreeSpecTest, TrueMeansRequiredAndDefaultsAreKept) {
  auto spec = spec_with("    worktree: true\n");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  const StepWorktree& w = spec->steps[0].worktree;
  EXPECT_EQ(w.mode, WorktreeMode::kRequired);
  EXPECT_EQ(w.commit, CommitMode::kAuto);
  EXPECT_EQ(w.merge, MergeMode::kNone);
  EXPECT_FALSE(w.strategy.has_value());
}

TEST(StepWorktreeSpecTest, EachWorktreeSettingWithoutAWorktreeIsRefusedByName) {
  for (const std::string key :
       {"repo: /r", "base: main", "commit: auto", "allowed_files: [a]", "merge: queue",
        "verify: 'true'", "target_branch: main", "merge_strategy: rebase"}) {
    const std::string message = error_of(spec_with("    " + key + "\n"));
    EXPECT_NE(message.find(key.substr(0, key.find(':'))), std::string::npos) << message;
    EXPECT_NE(message.find("needs worktree: auto or required"), std::string::npos) << message;
  }
}

TEST(StepWorktreeSpecTest, BadValuesAreRefusedNamingTheField) {
  struct Bad {
    std::string fields;
    std::string says;
  };
  const std::vector<Bad> cases = {
      {"    worktree: sometimes\n", "worktree"},
      {"    worktree: 1\n", "worktree"},
      {"    worktree: auto\n    base: --upload-pack=x\n", "base"},
      {"    worktree: auto\n    target_branch: a..b\n", "target_branch"},
      {"    worktree: auto\n    commit: always\n", "commit"},
      {"    worktree: auto\n    merge: yes please\n", "merge"},
      {"    worktree: auto\n    merge_strategy: octopus\n", "merge strategy"},
      {"    worktree: auto\n    verify: ''\n", "verify"},
      {"    worktree: auto\n    verify: \"a\\nb\"\n", "verify"},
      {"    worktree: auto\n    allowed_files: ['/etc/x']\n", "allowed_files[0]"},
      {"    worktree: auto\n    allowed_files: [ok, '../up']\n", "allowed_files[1]"},
      {"    worktree: auto\n    allowed_files: src\n", "allowed_files"},
      {"    worktree: auto\n    repo: 7\n", "repo"},
  };
  for (const Bad& bad : cases) {
    const std::string message = error_of(spec_with(bad.fields));
    EXPECT_NE(message.find(bad.says), std::string::npos) << bad.fields << " -> " << message;
    EXPECT_NE(message.find("step 'edit'"), std::string::npos) << message;
  }
}

TEST(StepWorktreeSpecTest, AStepIdThatCannotNameABranchIsRefusedOnlyWithAWorktree) {
  for (const std::string id : {"a..b", "x.lock", "end."}) {
    EXPECT_TRUE(spec_with("", id).ok()) << id;
    const std::string message = error_of(spec_with("    worktree: auto\n", id));
    EXPECT_NE(message.find("branch"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace orrery
