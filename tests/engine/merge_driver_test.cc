// The merge queue's driver (engine/merge_driver.h) over a real SQLite store
// and real git repositories made here, without the binary: reported workers
// are made in the store with real branches, and the driver is run in the
// test's process. A CommandRunner between the driver and the system lets a
// test act while the verification runs (a person's commit to the target),
// or stop the driver dead at any git call.
#include "engine/merge_driver.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include "core/git_names.h"
#include "exec/git.h"
#include "store/home_layout.h"
#include "store/sqlite/sqlite_store.h"
#include "support/fake_clock.h"
#include "support/fake_probe.h"
#include "support/temp_dir.h"

namespace orrery {
namespace {

using testing::FakeClock;
using testing::TempDir;

constexpr TimeMs kNow = 1'800'000'000'000;
const std::vector<EnvVar> kEnv = {{"PATH", "/usr/bin:/bin"}, {"HOME", "/nonexistent"}};

// The system's commands, with a hook run before each verification.
class HookedCommands final : public CommandRunner {
 public:
  Result<CommandResult> run(const CommandRequest& request) override {
    if (request.argv.size() == 3 && request.argv[0] == "/bin/sh") {
      ++verifications;
      if (before_verify) before_verify();
    }
    return system_commands().run(request);
  }
  std::function<void()> before_verify;
  int verifications = 0;
};

// Thrown where the driver's process would have been killed: the driver is
// abandoned mid-call, as kill -9 would leave it.
struct Killed {};

// The system's commands, except that the driver dies at its `kill_at`-th
// git call (before it runs, or after it did its work and before the driver
// saw its result), or that its `fail_at`-th git call fails.
class DyingCommands final : public CommandRunner {
 public:
  Result<CommandResult> run(const CommandRequest& request) override {
    const bool git = !request.argv.empty() && request.argv[0] == "git";
    if (git) ++calls;
    if (git && calls == kill_at && !after) throw Killed{};
    if (git && calls == fail_at) {
      CommandResult failed;
      failed.exit_code = 128;
      failed.tail = "fatal: injected failure of call ";
      failed.tail += std::to_string(calls);
      failed.tail += "\n";
      return failed;
    }
    auto result = system_commands().run(request);
    if (git && calls == kill_at && after) throw Killed{};
    return result;
  }
  int kill_at = 0;
  bool after = false;
  int fail_at = 0;  // this call fails as git does (exit 128), without running
  int calls = 0;
};

class MergeDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open({dir_.file("orrery.db"), sqlite::Synchronous::kNormal, 5000,
                                     std::make_shared<testing::FakeProbe>(), kNow});
    ASSERT_TRUE(opened.ok());
    store_ = std::move(*opened);
    repo_ = dir_.file("repo");
    sh("git init --quiet -b main " + repo_ + " && git -C " + repo_ +
       " config user.name P && git -C " + repo_ + " config user.email p@e");
    write(repo_ + "/README", "one\ntwo\nthree\n");
    sh("git -C " + repo_ + " add README && git -C " + repo_ + " commit --quiet -m first");
    base_ = head("main");
    options_.home = dir_.path();
    options_.driver = "queue@test";
    options_.env = kEnv;
    options_.commands = &commands_;
    options_.clock = &clock_;
    QueueConfig config;
    config.repo = repo_;
    config.verify = "true";
    ASSERT_TRUE(store_->configure_queue(config, kNow).ok());
  }

  static void sh(const std::string& line) { ASSERT_EQ(std::system(line.c_str()), 0) << line; }
  static void write(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
  }
  std::string head(const std::string& revision) {
    auto commit = git_.commit_of(repo_, revision);
    EXPECT_TRUE(commit.ok());
    return commit ? *commit : "";
  }

  // A reported worker whose branch sets `file` to `text`, in the queue.
  MergeEntry queued(const std::string& step, const std::string& file, const std::string& text,
                    const std::string& verify = "") {
    Worker worker;
    worker.workflow_run_id = "run1";
    worker.step_id = step;
    worker.repo = repo_;
    worker.branch = worker_branch("run1", step);
    worker.worktree_path = HomeLayout(dir_.path()).worktree("run1", step);
    worker.host = "h";
    worker.base_revision = base_;
    worker.base_branch = "main";
    Worker made = *store_->create_worker(worker, kNow);
    EXPECT_TRUE(git_.add_worktree(repo_, made.worktree_path, made.branch, base_).ok());
    write(made.worktree_path + "/" + file, text);
    EXPECT_TRUE(git_.commit_all(made.worktree_path, "step " + step).ok());
    const std::string final_revision = *git_.commit_of(made.worktree_path, "HEAD");
    for (auto [from, to] : {std::pair{WorkerState::kPlanned, WorkerState::kLeased},
                            {WorkerState::kLeased, WorkerState::kStarting},
                            {WorkerState::kStarting, WorkerState::kRunning},
                            {WorkerState::kRunning, WorkerState::kReported}}) {
      WorkerChange change;
      change.worker_id = made.id;
      change.from = from;
      change.to = to;
      change.lease_owner = "run1/" + step + "/1";
      change.lease_ms = 60'000;
      if (to == WorkerState::kReported) change.final_revision = final_revision;
      EXPECT_TRUE(store_->change_worker(change, kNow).ok());
    }
    MergeEntry entry;
    entry.worker_id = made.id;
    entry.repo = repo_;
    entry.target = "main";
    entry.base_revision = base_;
    entry.candidate_revision = final_revision;
    entry.verify.command = verify;
    clock_.advance(1);
    return *store_->enqueue_merge(entry, clock_.wall_now());
  }

  MergeEntry entry(const std::string& id) { return *store_->resolve_merge_entry(id); }
  void use_strategy(MergeStrategy strategy) {
    QueueConfig config;
    config.repo = repo_;
    config.verify = "true";
    config.strategy = strategy;
    ASSERT_TRUE(store_->configure_queue(config, kNow).ok());
  }
  // The target checked out in repo_, or repo_'s checkout detached.
  void check_out_target(bool checked_out) {
    sh("git -C " + repo_ + (checked_out ? " checkout --quiet main" : " checkout --quiet --detach"));
  }
  // `git -C repo ARGS`'s stdout, its last newline cut.
  std::string run_git(const std::string& args) const {
    CommandRequest request;
    request.argv = {"/bin/sh", "-c", "git -C " + repo_ + " " + args};
    request.env = kEnv;
    request.cwd = repo_;
    auto result = system_commands().run(request);
    if (!result || !result->succeeded()) return "(failed: git " + args + ")";
    std::string text = result->stdout_text;
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  }
  Worker worker_of(const MergeEntry& entry) { return **store_->get_worker(entry.worker_id); }

  int drive() {
    auto driven = drive_merge_queue(*store_, {repo_, "main"}, options_);
    EXPECT_TRUE(driven.ok()) << (driven ? "" : driven.error().message);
    return driven ? *driven : -1;
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  Git git_{system_commands(), kEnv};
  HookedCommands commands_;
  FakeClock clock_{kNow};
  MergeDriverOptions options_;
  std::string repo_;
  std::string base_;
};

TEST_F(MergeDriverTest, EntriesMergeOneAtATimeInOrderEachOnTheLast) {
  const MergeEntry a = queued("a", "a.txt", "a\n");
  const MergeEntry b = queued("b", "b.txt", "b\n");
  EXPECT_EQ(drive(), 2);
  const MergeEntry first = entry(a.id);
  const MergeEntry second = entry(b.id);
  EXPECT_EQ(first.state, MergeState::kMerged);
  EXPECT_EQ(second.state, MergeState::kMerged);
  EXPECT_EQ(first.parent_revision, base_);
  EXPECT_EQ(second.parent_revision, first.merge_commit);  // on top of the first
  EXPECT_EQ(head("main"), second.merge_commit);
  EXPECT_EQ(second.verify.command, "true");
  EXPECT_EQ(second.verify.exit_code, 0);
  EXPECT_EQ(second.verify.tree, *git_.tree_of(repo_, second.merge_commit));
  EXPECT_EQ(worker_of(first).state, WorkerState::kMerged);
  EXPECT_FALSE(std::filesystem::exists(worker_of(first).worktree_path));
  EXPECT_FALSE(*git_.branch_exists(repo_, worker_of(first).branch));
  EXPECT_FALSE(std::filesystem::exists(HomeLayout(dir_.path()).queue_scratch(a.id)));
  // The checkout followed.
  std::ifstream a_file(repo_ + "/a.txt");
  EXPECT_TRUE(a_file.good());
  // The queue's lease is given up once it is empty.
  EXPECT_TRUE(*store_->lease_queue({repo_, "main"}, QueueHolder{"someone-else", {}}, 1000,
                                   clock_.wall_now()));
}

TEST_F(MergeDriverTest, AConflictHoldsTheWorkerKeepsItsBranchAndLeavesTheTarget) {
  const MergeEntry a = queued("a", "README", "one\nA\nthree\n");
  const MergeEntry b = queued("b", "README", "one\nB\nthree\n");
  drive();
  const MergeEntry conflict = entry(b.id);
  EXPECT_EQ(conflict.state, MergeState::kConflict);
  EXPECT_EQ(conflict.conflict_files_json, "[\"README\"]");
  EXPECT_EQ(head("main"), entry(a.id).merge_commit);
  const Worker held = worker_of(conflict);
  EXPECT_EQ(held.state, WorkerState::kHold);
  EXPECT_TRUE(*git_.branch_exists(repo_, held.branch));
  EXPECT_TRUE(std::filesystem::exists(held.worktree_path));
}

TEST_F(MergeDriverTest, AFailedVerificationRejectsWithTheOutputAndNoVerifyIsNeverASkip) {
  const MergeEntry bad = queued("a", "a.txt", "a\n", "echo broken >&2; exit 7");
  drive();
  const MergeEntry rejected = entry(bad.id);
  EXPECT_EQ(rejected.state, MergeState::kRejected);
  EXPECT_EQ(rejected.verify.exit_code, 7);
  EXPECT_NE(rejected.verify.output_tail.find("broken"), std::string::npos);
  EXPECT_EQ(head("main"), base_);
  EXPECT_EQ(worker_of(rejected).state, WorkerState::kHold);
  // A queue with no command at all rejects rather than merging.
  QueueConfig config;
  config.repo = repo_;
  ASSERT_TRUE(store_->configure_queue(config, kNow).ok());
  const MergeEntry unverified = queued("b", "b.txt", "b\n");
  drive();
  EXPECT_EQ(entry(unverified.id).state, MergeState::kRejected);
  EXPECT_EQ(commands_.verifications, 1);
  EXPECT_EQ(head("main"), base_);
}

TEST_F(MergeDriverTest, ATipThatMovesDuringVerificationIsVerifiedAgainNeverOverwritten) {
  const MergeEntry a = queued("a", "a.txt", "a\n");
  std::string human;
  commands_.before_verify = [&] {
    if (!human.empty()) return;
    write(repo_ + "/human.txt", "human\n");
    sh("git -C " + repo_ + " add human.txt && git -C " + repo_ + " commit --quiet -m human");
    human = head("main");
  };
  drive();
  const MergeEntry merged = entry(a.id);
  EXPECT_EQ(merged.state, MergeState::kMerged);
  EXPECT_EQ(commands_.verifications, 2);
  EXPECT_EQ(merged.parent_revision, human);
  EXPECT_TRUE(*git_.is_ancestor(repo_, human, head("main")));
}

TEST_F(MergeDriverTest, ATargetNotCheckedOutMovesByCompareAndSwap) {
  sh("git -C " + repo_ + " checkout --quiet --detach");
  const MergeEntry a = queued("a", "a.txt", "a\n");
  drive();
  EXPECT_EQ(entry(a.id).state, MergeState::kMerged);
  EXPECT_EQ(head("main"), entry(a.id).merge_commit);
  EXPECT_EQ(head("HEAD"), base_);  // the detached checkout did not move
}

TEST_F(MergeDriverTest, EachStrategyMerges) {
  for (MergeStrategy strategy :
       {MergeStrategy::kMerge, MergeStrategy::kSquash, MergeStrategy::kRebase}) {
    QueueConfig config;
    config.repo = repo_;
    config.verify = "true";
    config.strategy = strategy;
    ASSERT_TRUE(store_->configure_queue(config, kNow).ok());
    const std::string step = merge_strategy_name(strategy);
    const MergeEntry e = queued(step, step + ".txt", step + "\n");
    drive();
    EXPECT_EQ(entry(e.id).state, MergeState::kMerged) << step << ": " << entry(e.id).reason;
    std::ifstream file(repo_ + "/" + step + ".txt");
    EXPECT_TRUE(file.good()) << step;
  }
}

TEST_F(MergeDriverTest, AnEntryLeftReadyByAStoppedDriverIsVerifiedAgain) {
  const MergeEntry a = queued("a", "a.txt", "a\n");
  // A driver took it and died (its lease runs out).
  ASSERT_TRUE(*store_->lease_queue({repo_, "main"}, QueueHolder{"queue@dead", {}}, 1000,
                                   clock_.wall_now()));
  MergeChange take;
  take.entry_id = a.id;
  take.from = MergeState::kWaiting;
  take.to = MergeState::kReady;
  take.driver = "queue@dead";
  WorkerChange verifying;
  verifying.worker_id = a.worker_id;
  verifying.from = WorkerState::kReported;
  verifying.to = WorkerState::kVerifying;
  verifying.lease_owner = "queue@dead";
  verifying.lease_ms = 1000;
  take.worker = verifying;
  ASSERT_TRUE(store_->change_merge_entry(take, clock_.wall_now()).ok());
  EXPECT_EQ(drive(), 0);  // the dead driver's lease still runs: nothing done
  EXPECT_EQ(entry(a.id).state, MergeState::kReady);
  clock_.advance(2000);
  EXPECT_EQ(drive(), 1);
  EXPECT_EQ(entry(a.id).state, MergeState::kMerged);
}

// Generated over strategy x where the target is (checked out, or only a
// branch) x before or after each git call of a merge: the driver dies
// there, the next one (a lease later) finishes, and the entry has landed
// exactly once, with nothing of it left behind.
TEST_F(MergeDriverTest, AnEntryMergesExactlyOnceWhateverGitCallItsDriverDiesAt) {
  int cases = 0;
  for (MergeStrategy strategy :
       {MergeStrategy::kRebase, MergeStrategy::kMerge, MergeStrategy::kSquash}) {
    use_strategy(strategy);
    for (bool checked_out : {true, false}) {
      check_out_target(checked_out);
      for (bool after : {false, true}) {
        for (int kill_at = 1;; ++kill_at) {
          const std::string name = std::string(merge_strategy_name(strategy)) +
                                   (checked_out ? "-co" : "-br") +
                                   (after ? "-after-" : "-before-") + std::to_string(kill_at);
          SCOPED_TRACE(name);
          const MergeEntry queued_entry = queued(name, name + ".txt", name + "\n");
          const std::string before = head("main");
          DyingCommands dying;
          dying.kill_at = kill_at;
          dying.after = after;
          MergeDriverOptions first = options_;
          first.commands = &dying;
          first.driver = "queue@first-" + name;
          bool killed = false;
          try {
            (void)drive_merge_queue(*store_, {repo_, "main"}, first);
          } catch (const Killed&) {
            killed = true;
          }
          if (killed) {
            clock_.advance(kQueueLeaseMs + 1);
            drive();
          }
          ++cases;
          const MergeEntry merged = entry(queued_entry.id);
          ASSERT_EQ(merged.state, MergeState::kMerged) << merged.reason;
          EXPECT_EQ(run_git("rev-list --count --first-parent " + before + "..main"), "1");
          EXPECT_EQ(run_git("show main:" + name + ".txt"), name);
          EXPECT_EQ(merged.merge_commit, head("main"));
          const Worker worker = worker_of(merged);
          EXPECT_EQ(worker.state, WorkerState::kMerged);
          EXPECT_FALSE(std::filesystem::exists(worker.worktree_path));
          EXPECT_FALSE(*git_.branch_exists(repo_, worker.branch));
          EXPECT_FALSE(std::filesystem::exists(HomeLayout(dir_.path()).queue_scratch(merged.id)));
          EXPECT_EQ(run_git("worktree list --porcelain")
                        .find("worktree " + HomeLayout(dir_.path()).worktrees()),
                    std::string::npos)
              << run_git("worktree list --porcelain");
          if (!killed) break;  // the driver made fewer git calls than kill_at
          ASSERT_LT(kill_at, 200) << "a merge that never ends";
        }
      }
    }
  }
  EXPECT_GT(cases, 6 * 10);
}

// Generated over each git call of a merge failing as git fails (exit 128),
// for each strategy and where the target is: the driver goes on, the entry
// ends (merged once, or rejected with git's reason and the target as it
// was), and no scratch worktree is left.
TEST_F(MergeDriverTest, AGitFailureAtAnyCallEndsTheEntryAndLeavesNoScratch) {
  int failed_cases = 0;
  for (MergeStrategy strategy :
       {MergeStrategy::kRebase, MergeStrategy::kMerge, MergeStrategy::kSquash}) {
    use_strategy(strategy);
    for (bool checked_out : {true, false}) {
      if (!checked_out && strategy != MergeStrategy::kSquash) continue;
      check_out_target(checked_out);
      for (int fail_at = 1;; ++fail_at) {
        const std::string name = std::string(merge_strategy_name(strategy)) +
                                 (checked_out ? "-co" : "-br") + "-fail-" + std::to_string(fail_at);
        SCOPED_TRACE(name);
        const MergeEntry queued_entry = queued(name, name + ".txt", name + "\n");
        const std::string before = head("main");
        DyingCommands failing;
        failing.fail_at = fail_at;
        MergeDriverOptions options = options_;
        options.commands = &failing;
        auto driven = drive_merge_queue(*store_, {repo_, "main"}, options);
        ASSERT_TRUE(driven.ok()) << driven.error().message;
        const MergeEntry ended = entry(queued_entry.id);
        const Worker worker = worker_of(ended);
        if (ended.state == MergeState::kMerged) {
          EXPECT_EQ(run_git("rev-list --count --first-parent " + before + "..main"), "1");
          EXPECT_EQ(worker.state, WorkerState::kMerged);
        } else {
          ++failed_cases;
          EXPECT_EQ(ended.state, MergeState::kRejected);
          EXPECT_NE(ended.reason.find("injected failure of call"), std::string::npos)
              << ended.reason;
          EXPECT_EQ(head("main"), before);
          EXPECT_EQ(worker.state, WorkerState::kHold);
          EXPECT_TRUE(*git_.branch_exists(repo_, worker.branch));
        }
        EXPECT_FALSE(std::filesystem::exists(HomeLayout(dir_.path()).queue_scratch(ended.id)));
        EXPECT_EQ(run_git("worktree list --porcelain").find("/queue/"), std::string::npos)
            << run_git("worktree list --porcelain");
        if (failing.calls < fail_at) break;  // no call failed: every call has been
        ASSERT_LT(fail_at, 200) << "a merge that never ends";
      }
    }
  }
  EXPECT_GT(failed_cases, 4 * 5);
}

// The target checked out in a worktree whose directory was deleted: the
// entry is rejected saying so and how to mend it, nothing leaks, and once
// mended a retry merges.
TEST_F(MergeDriverTest, ATargetCheckedOutInADeletedWorktreeRejectsWithTheMend) {
  sh("git -C " + repo_ + " checkout --quiet --detach && git -C " + repo_ +
     " worktree add --quiet " + dir_.file("elsewhere") + " main && rm -rf " +
     dir_.file("elsewhere"));
  const MergeEntry a = queued("a", "a.txt", "a\n");
  EXPECT_EQ(drive(), 1);
  const MergeEntry rejected = entry(a.id);
  ASSERT_EQ(rejected.state, MergeState::kRejected);
  EXPECT_NE(rejected.reason.find("which is gone; git -C " + repo_ + " worktree prune"),
            std::string::npos)
      << rejected.reason;
  EXPECT_EQ(head("main"), base_);
  EXPECT_EQ(run_git("worktree list --porcelain").find("/queue/"), std::string::npos);
  sh("git -C " + repo_ + " worktree prune");
  MergeChange retry;
  retry.entry_id = a.id;
  retry.from = MergeState::kRejected;
  retry.to = MergeState::kWaiting;
  WorkerChange reported;
  reported.worker_id = a.worker_id;
  reported.from = WorkerState::kHold;
  reported.to = WorkerState::kReported;
  retry.worker = reported;
  ASSERT_TRUE(store_->change_merge_entry(retry, clock_.wall_now()).ok());
  EXPECT_EQ(drive(), 1);
  EXPECT_EQ(entry(a.id).state, MergeState::kMerged) << entry(a.id).reason;
}

// What a person left uncommitted in a worker's worktree while its entry
// waited is not removed with the merge: the worktree and its branch stay.
TEST_F(MergeDriverTest, AMergedWorkersWorktreeWithUncommittedWorkIsKept) {
  for (const std::string leftover : {"untracked", "modified", "staged"}) {
    SCOPED_TRACE(leftover);
    const MergeEntry queued_entry = queued(leftover, leftover + ".txt", "x\n");
    const Worker worker = worker_of(queued_entry);
    const std::string file = worker.worktree_path + "/" + leftover + ".txt";
    if (leftover == "untracked") write(worker.worktree_path + "/notes.txt", "mine\n");
    if (leftover != "untracked") write(file, "changed by a person\n");
    if (leftover == "staged") sh("git -C " + worker.worktree_path + " add " + leftover + ".txt");
    EXPECT_EQ(drive(), 1);
    const MergeEntry merged = entry(queued_entry.id);
    ASSERT_EQ(merged.state, MergeState::kMerged) << merged.reason;
    EXPECT_NE(merged.reason.find("is kept: it holds 1 uncommitted file"), std::string::npos)
        << merged.reason;
    EXPECT_TRUE(std::filesystem::exists(worker.worktree_path));
    EXPECT_TRUE(*git_.branch_exists(repo_, worker.branch));
    if (leftover == "untracked") {
      EXPECT_EQ(run_git("-C " + worker.worktree_path + " status --porcelain"), "?? notes.txt");
    }
  }
}

// Generated over repository settings that change what git does (each set
// in the repository's own configuration) x strategy: the worker's commit
// and the merge happen as without it, exactly once.
TEST_F(MergeDriverTest, TheRepositorysGitSettingsChangeNothingOrreryDoes) {
  const std::string hooks = dir_.file("hooks");
  sh("mkdir -p " + hooks +
     " && for h in pre-commit commit-msg post-checkout pre-rebase "
     "post-merge post-rewrite reference-transaction; do printf '#!/bin/sh\\nexit 1\\n' > " +
     hooks + "/$h; chmod +x " + hooks + "/$h; done");
  const std::vector<std::string> settings = {
      "merge.ff only",
      "merge.ff false",
      "merge.autoStash true",
      "merge.renormalize true",
      "merge.verifySignatures true",
      "merge.conflictStyle zdiff3",
      "merge.log true",
      "rebase.autoStash true",
      "rebase.autoSquash true",
      "rebase.updateRefs true",
      "commit.gpgSign true",
      "gpg.program /bin/false",
      "commit.cleanup scissors",
      "core.hooksPath " + hooks,
      "core.fsmonitor /bin/false",
      "core.autocrlf true",
      "core.safecrlf true",
      "color.ui always",
      "diff.external /bin/false",
      "diff.renames copies",
      "rerere.enabled true",
      "worktree.guessRemote true",
      "submodule.recurse true",
      "gc.auto 1",
  };
  int cases = 0;
  for (const std::string& setting : settings) {
    sh("git -C " + repo_ + " config " + setting);
    for (MergeStrategy strategy :
         {MergeStrategy::kRebase, MergeStrategy::kMerge, MergeStrategy::kSquash}) {
      std::string name = "set";
      name += std::to_string(++cases);
      SCOPED_TRACE(setting + ", " + merge_strategy_name(strategy));
      use_strategy(strategy);
      const std::string before = head("main");
      const MergeEntry queued_entry = queued(name, name + ".txt", name + "\n");
      EXPECT_EQ(drive(), 1);
      const MergeEntry merged = entry(queued_entry.id);
      EXPECT_EQ(merged.state, MergeState::kMerged) << merged.reason;
      EXPECT_EQ(run_git("rev-list --count --first-parent " + before + "..main"), "1");
      EXPECT_EQ(run_git("show main:" + name + ".txt"), name);
    }
    const std::string key = setting.substr(0, setting.find(' '));
    sh("git -C " + repo_ + " config --unset-all " + key);
  }
}

}  // namespace
}  // namespace orrery
