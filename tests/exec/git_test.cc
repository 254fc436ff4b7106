// Git (exec/git.h) against real repositories made here: worktrees and
// branches, commits of what a step left, changed files, and the merge
// steps — combining by each strategy, conflicts, the compare-and-swap and
// the fast-forward of a checkout.
#include "exec/git.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support/temp_dir.h"

namespace orrery {
namespace {

using testing::TempDir;

class GitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = dir_.file("repo");
    sh("git init --quiet -b main " + repo_);
    sh("git -C " + repo_ + " config user.name Tester && git -C " + repo_ +
       " config user.email t@example.com");
    write(repo_ + "/README", "one\ntwo\nthree\n");
    sh("git -C " + repo_ + " add README && git -C " + repo_ + " commit --quiet -m first");
    base_ = ok(git_.commit_of(repo_, "HEAD"));
  }

  static void sh(const std::string& line) { ASSERT_EQ(std::system(line.c_str()), 0) << line; }
  static void write(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
  }
  static std::string read(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  template <typename T>
  static T ok(Result<T> result) {
    EXPECT_TRUE(result.ok()) << (result ? "" : result.error().message);
    return result ? std::move(*result) : T{};
  }

  // A worktree on its own branch with `file` set to `text`, committed.
  std::string worker_commit(const std::string& name, const std::string& file,
                            const std::string& text) {
    const std::string path = dir_.file("wt-" + name);
    EXPECT_TRUE(git_.add_worktree(repo_, path, "orrery/x/" + name, base_).ok());
    write(path + "/" + file, text);
    EXPECT_TRUE(ok(git_.commit_all(path, "orrery: " + name)));
    return ok(git_.commit_of(path, "HEAD"));
  }

  TempDir dir_;
  Git git_{system_commands(), {{"PATH", "/usr/bin:/bin"}, {"HOME", "/nonexistent"}}};
  std::string repo_;
  std::string base_;
};

TEST_F(GitTest, ARepositoryIsFoundFromInsideAndAPlainDirectoryIsNotOne) {
  sh("mkdir -p " + repo_ + "/sub/deep");
  EXPECT_EQ(ok(git_.toplevel(repo_ + "/sub/deep")).value_or(""), repo_);
  EXPECT_FALSE(ok(git_.toplevel(dir_.path())).has_value());
  EXPECT_EQ(ok(git_.current_branch(repo_)), "main");
  EXPECT_EQ(ok(git_.commit_of(repo_, "main")), base_);
  EXPECT_EQ(git_.commit_of(repo_, "no-such-branch").error().code, ErrorCode::kNotFound);
  // A revision that looks like an option is a revision, never an option.
  EXPECT_FALSE(git_.commit_of(repo_, "--all").ok());
}

TEST_F(GitTest, AWorktreeCommitsWhatWasLeftAndListsWhatChanged) {
  const std::string path = dir_.file("wt");
  ASSERT_TRUE(git_.add_worktree(repo_, path, "orrery/r/edit", base_).ok());
  EXPECT_FALSE(ok(git_.commit_all(path, "nothing")));  // nothing to commit
  write(path + "/new.txt", "new\n");
  write(path + "/README", "changed\n");
  EXPECT_TRUE(ok(git_.commit_all(path, "orrery: run r step edit")));
  const std::string head = ok(git_.commit_of(path, "HEAD"));
  EXPECT_EQ(ok(git_.changed_files(repo_, base_, head)),
            (std::vector<std::string>{"README", "new.txt"}));
  EXPECT_EQ(ok(git_.checkout_of(repo_, "orrery/r/edit")).value_or(""), path);
  EXPECT_EQ(ok(git_.checkout_of(repo_, "main")).value_or(""), repo_);
  // The user's checkout did not move.
  EXPECT_EQ(ok(git_.commit_of(repo_, "HEAD")), base_);
  EXPECT_EQ(read(repo_ + "/README"), "one\ntwo\nthree\n");
}

TEST_F(GitTest, RemovingAWorktreeAndItsBranchLeavesNothingAndIsRepeatable) {
  const std::string path = dir_.file("wt");
  ASSERT_TRUE(git_.add_worktree(repo_, path, "orrery/r/edit", base_).ok());
  write(path + "/dirty", "uncommitted\n");
  EXPECT_TRUE(ok(git_.remove_worktree_of(repo_, path, "orrery/r/edit")));
  ASSERT_TRUE(git_.delete_branch_at(repo_, "orrery/r/edit", base_).ok());
  EXPECT_FALSE(std::ifstream(path).good());
  EXPECT_FALSE(ok(git_.branch_exists(repo_, "orrery/r/edit")));
  EXPECT_FALSE(ok(git_.remove_worktree_of(repo_, path, "orrery/r/edit")));
  EXPECT_TRUE(git_.remove_worktree(repo_, path).ok());
  EXPECT_TRUE(git_.delete_branch_at(repo_, "orrery/r/edit", base_).ok());
}

TEST_F(GitTest, AWorktreeOfAnotherBranchAndABranchThatMovedAreKept) {
  const std::string path = dir_.file("wt");
  ASSERT_TRUE(git_.add_worktree(repo_, path, "orrery/r/other", base_).ok());
  EXPECT_FALSE(ok(git_.remove_worktree_of(repo_, path, "orrery/r/edit")));
  EXPECT_TRUE(std::ifstream(path + "/README").good()) << "another branch's worktree is kept";
  write(path + "/mine.txt", "mine\n");
  ASSERT_TRUE(ok(git_.commit_all(path, "a person's commit")));
  const std::string moved = ok(git_.commit_of(repo_, "orrery/r/other"));
  const Status kept = git_.delete_branch_at(repo_, "orrery/r/other", base_);
  ASSERT_FALSE(kept.ok());
  EXPECT_EQ(kept.error().code, ErrorCode::kConflict);
  EXPECT_NE(kept.error().message.find(moved), std::string::npos) << kept.error().message;
  EXPECT_EQ(ok(git_.commit_of(repo_, "orrery/r/other")), moved);
}

TEST_F(GitTest, EachStrategyPutsACandidateOnTheTip) {
  const std::string a = worker_commit("a", "a.txt", "a\n");
  const std::string b = worker_commit("b", "b.txt", "b\n");
  // a lands first (the tip moves), then b is combined on it by each strategy.
  ASSERT_TRUE(ok(git_.swap_branch(repo_, "main", a, base_)));
  for (MergeStrategy strategy :
       {MergeStrategy::kRebase, MergeStrategy::kMerge, MergeStrategy::kSquash}) {
    const std::string scratch = dir_.file(std::string("scratch-") + merge_strategy_name(strategy));
    ASSERT_TRUE(git_.add_detached_worktree(repo_, scratch, a).ok());
    const Combined combined = ok(git_.combine(scratch, a, base_, b, strategy, "orrery: merge b"));
    ASSERT_FALSE(combined.conflict) << merge_strategy_name(strategy);
    EXPECT_TRUE(ok(git_.is_ancestor(repo_, a, combined.commit))) << merge_strategy_name(strategy);
    EXPECT_EQ(read(scratch + "/a.txt"), "a\n");
    EXPECT_EQ(read(scratch + "/b.txt"), "b\n");
    EXPECT_EQ(ok(git_.tree_of(repo_, combined.commit)).size(), 40u);
    ASSERT_TRUE(git_.remove_worktree(repo_, scratch).ok());
  }
}

TEST_F(GitTest, TwoChangesToOneLineConflictAndTheConflictIsAbortedNotLeftBehind) {
  const std::string a = worker_commit("a", "README", "one\nTWO by a\nthree\n");
  const std::string b = worker_commit("b", "README", "one\nTWO by b\nthree\n");
  ASSERT_TRUE(ok(git_.swap_branch(repo_, "main", a, base_)));
  for (MergeStrategy strategy :
       {MergeStrategy::kRebase, MergeStrategy::kMerge, MergeStrategy::kSquash}) {
    const std::string scratch = dir_.file(std::string("scratch-") + merge_strategy_name(strategy));
    ASSERT_TRUE(git_.add_detached_worktree(repo_, scratch, a).ok());
    const Combined combined = ok(git_.combine(scratch, a, base_, b, strategy, "m"));
    EXPECT_TRUE(combined.conflict) << merge_strategy_name(strategy);
    EXPECT_EQ(combined.conflict_files, std::vector<std::string>{"README"});
    ASSERT_TRUE(git_.remove_worktree(repo_, scratch).ok());
  }
  EXPECT_EQ(ok(git_.commit_of(repo_, "orrery/x/b")), b);  // the branch is kept
}

TEST_F(GitTest, TheTargetMovesOnlyFromTheCommitItWasReadAt) {
  const std::string a = worker_commit("a", "a.txt", "a\n");
  const std::string b = worker_commit("b", "b.txt", "b\n");
  ASSERT_TRUE(ok(git_.swap_branch(repo_, "main", a, base_)));
  EXPECT_FALSE(ok(git_.swap_branch(repo_, "main", b, base_)));  // it moved: refused
  EXPECT_EQ(ok(git_.commit_of(repo_, "main")), a);
}

TEST_F(GitTest, ACleanCheckoutFastForwardsAndADirtyOneIsSeen) {
  const std::string a = worker_commit("a", "a.txt", "a\n");
  EXPECT_FALSE(ok(git_.dirty(repo_)));
  write(repo_ + "/untracked", "mine\n");  // untracked files do not count
  EXPECT_FALSE(ok(git_.dirty(repo_)));
  EXPECT_EQ(ok(git_.fast_forward_checkout(repo_, a)), "");
  EXPECT_EQ(read(repo_ + "/a.txt"), "a\n");
  EXPECT_EQ(read(repo_ + "/untracked"), "mine\n");
  write(repo_ + "/README", "edited by a person\n");
  EXPECT_TRUE(ok(git_.dirty(repo_)));
  // Not a fast-forward (a person committed on main): refused, nothing moves.
  sh("git -C " + repo_ + " commit --quiet -am person");
  const std::string b = worker_commit("b", "b.txt", "b\n");
  EXPECT_NE(ok(git_.fast_forward_checkout(repo_, b)), "");
  EXPECT_EQ(read(repo_ + "/README"), "edited by a person\n");
}

TEST_F(GitTest, GitIsNotPointedElsewhereByTheEnvironment) {
  const auto env = git_environment({{"GIT_DIR", "/elsewhere"},
                                    {"GIT_WORK_TREE", "/elsewhere"},
                                    {"LC_ALL", "de_DE.UTF-8"},
                                    {"PATH", "/usr/bin:/bin"}});
  for (const EnvVar& pair : env) {
    EXPECT_NE(pair.first, "GIT_DIR");
    EXPECT_NE(pair.first, "GIT_WORK_TREE");
    if (pair.first == "LC_ALL") {
      EXPECT_EQ(pair.second, "C");
    }
  }
  Git pointed(system_commands(), {{"GIT_DIR", "/elsewhere"}, {"PATH", "/usr/bin:/bin"}});
  EXPECT_EQ(pointed.toplevel(repo_).value().value_or(""), repo_);
}

}  // namespace
}  // namespace orrery
