// A step attempt in its worktree (exec/worker_run.h) over a real SQLite store
// and a real git repository, without a supervisor: prepare, then finish with
// the outcome a target would have left.
#include "exec/worker_run.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "store/sqlite/sqlite_store.h"
#include "support/fake_probe.h"
#include "support/temp_dir.h"

namespace orrery {
namespace {

using testing::TempDir;

constexpr TimeMs kNow = 1'800'000'000'000;
const std::vector<EnvVar> kEnv = {{"PATH", "/usr/bin:/bin"}, {"HOME", "/nonexistent"}};

class WorkerRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open({dir_.file("orrery.db"), sqlite::Synchronous::kNormal, 5000,
                                     std::make_shared<testing::FakeProbe>(), kNow});
    ASSERT_TRUE(opened.ok());
    store_ = std::move(*opened);
    repo_ = dir_.file("repo");
    sh("git init --quiet -b main " + repo_ + " && mkdir -p " + repo_ + "/sub && git -C " + repo_ +
       " config user.name P && git -C " + repo_ + " config user.email p@e");
    std::ofstream(repo_ + "/sub/README") << "hello\n";
    sh("git -C " + repo_ + " add -A && git -C " + repo_ + " commit --quiet -m first");
  }

  static void sh(const std::string& line) { ASSERT_EQ(std::system(line.c_str()), 0) << line; }

  WorkerAttempt attempt(int number = 1, int max_attempts = 1) {
    WorkerAttempt a;
    a.home = dir_.path();
    a.workflow_name = "w";
    a.run_id = "0123456789abcdef0123456789abcdef";
    a.step_id = "edit";
    a.dispatch_id = a.run_id + "/edit/" + std::to_string(number);
    a.attempt = number;
    a.max_attempts = max_attempts;
    a.lease_ms = 60'000;
    a.host = "h";
    a.settings.mode = WorktreeMode::kRequired;
    return a;
  }

  std::unique_ptr<WorkerRun> make(const WorkerAttempt& a) {
    return std::make_unique<WorkerRun>(*store_, *store_, *store_, git_, a);
  }

  Worker the_worker() {
    auto found = store_->find_worker("0123456789abcdef0123456789abcdef", "edit");
    EXPECT_TRUE(found.ok() && found->has_value());
    return found.ok() && found->has_value() ? **found : Worker{};
  }

  static RunOutcome outcome(RunStatus status) {
    RunOutcome made;
    made.status = status;
    if (status != RunStatus::kSucceeded) made.error = "exit status 1";
    return made;
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  Git git_{system_commands(), kEnv};
  std::string repo_;
};

TEST_F(WorkerRunTest, TheTargetRunsInTheSamePlaceInsideItsOwnWorktree) {
  auto run = make(attempt());
  auto cwd = run->prepare(repo_ + "/sub", kNow);
  ASSERT_TRUE(cwd.ok()) << cwd.error().message;
  const Worker worker = the_worker();
  EXPECT_EQ(*cwd, worker.worktree_path + "/sub");
  EXPECT_EQ(worker.worktree_path, dir_.path() + "/worktrees/0123456789abcdef0123456789abcdef/edit");
  EXPECT_EQ(worker.state, WorkerState::kRunning);
  EXPECT_EQ(worker.lease_owner, "0123456789abcdef0123456789abcdef/edit/1");
  EXPECT_EQ(worker.branch, "orrery/0123456789abcdef0123456789abcdef/edit");
  EXPECT_EQ(worker.base_branch, "main");
  EXPECT_TRUE(std::filesystem::exists(*cwd + "/README"));
  EXPECT_TRUE(run->heartbeat(kNow + 10).ok());
}

TEST_F(WorkerRunTest, ASucceededStepIsCommittedAndReportedWithItsFiles) {
  auto run = make(attempt());
  const std::string cwd = *run->prepare(repo_, kNow);
  std::ofstream(cwd + "/new.txt") << "new\n";
  std::filesystem::remove(cwd + "/sub/README");
  RunOutcome done = outcome(RunStatus::kSucceeded);
  run->finish(done, kNow + 5);
  EXPECT_EQ(done.status, RunStatus::kSucceeded) << done.error;
  const Worker worker = the_worker();
  EXPECT_EQ(worker.state, WorkerState::kReported);
  EXPECT_EQ(worker.changed_files, (std::vector<std::string>{"new.txt", "sub/README"}));
  EXPECT_EQ(worker.final_revision, *git_.commit_of(cwd, "HEAD"));
  EXPECT_FALSE(*git_.dirty(cwd));
  // The person's checkout is untouched.
  EXPECT_FALSE(std::filesystem::exists(repo_ + "/new.txt"));
  EXPECT_TRUE(std::filesystem::exists(repo_ + "/sub/README"));
  EXPECT_FALSE(*git_.dirty(repo_));
}

TEST_F(WorkerRunTest, AChangeOutsideAllowedFilesFailsTheAttemptAndHoldsTheWorker) {
  WorkerAttempt a = attempt();
  a.settings.allowed_files = {"sub/**"};
  a.settings.merge = MergeMode::kQueue;
  auto run = make(a);
  const std::string cwd = *run->prepare(repo_, kNow);
  std::ofstream(cwd + "/sub/ok.txt") << "ok\n";
  std::ofstream(cwd + "/Makefile") << "all:\n";
  RunOutcome done = outcome(RunStatus::kSucceeded);
  run->finish(done, kNow + 5);
  EXPECT_EQ(done.status, RunStatus::kFailed);
  EXPECT_NE(done.error.find("Makefile"), std::string::npos) << done.error;
  const Worker worker = the_worker();
  EXPECT_EQ(worker.state, WorkerState::kHold);
  EXPECT_NE(worker.hold_reason.find("Makefile"), std::string::npos);
  EXPECT_EQ(worker.hold_reason.find("ok.txt"), std::string::npos);
  EXPECT_TRUE(store_->list_merge_entries({}).value().empty());
}

TEST_F(WorkerRunTest, AFailedAttemptHoldsTheWorkerAndTheNextOneContinuesInTheSameWorktree) {
  auto first = make(attempt(1, 2));
  const std::string cwd = *first->prepare(repo_, kNow);
  std::ofstream(cwd + "/left.txt") << "from attempt 1\n";
  RunOutcome failed = outcome(RunStatus::kFailed);
  first->finish(failed, kNow + 5);
  Worker worker = the_worker();
  EXPECT_EQ(worker.state, WorkerState::kHold);
  EXPECT_NE(worker.hold_reason.find("the next attempt resumes it"), std::string::npos);
  auto second = make(attempt(2, 2));
  auto again = second->prepare(repo_, kNow + 10);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(*again, cwd);
  EXPECT_TRUE(std::filesystem::exists(cwd + "/left.txt"));
  EXPECT_EQ(the_worker().lease_owner, "0123456789abcdef0123456789abcdef/edit/2");
  // The first attempt's lease is gone: a heartbeat in its name is refused.
  EXPECT_FALSE(store_
                   ->heartbeat_worker(the_worker().id, "0123456789abcdef0123456789abcdef/edit/1",
                                      60'000, kNow + 11)
                   .ok());
}

TEST_F(WorkerRunTest, ALiveWorkerIsNotTakenByAnotherAttempt) {
  auto first = make(attempt(1, 3));
  ASSERT_TRUE(first->prepare(repo_, kNow).ok());
  auto second = make(attempt(2, 3));
  auto refused = second->prepare(repo_, kNow + 1);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  EXPECT_NE(refused.error().message.find("running"), std::string::npos);
  EXPECT_EQ(the_worker().lease_owner, "0123456789abcdef0123456789abcdef/edit/1");
}

TEST_F(WorkerRunTest, APlainDirectoryIsUsedWithAutoAndRefusedWithRequired) {
  const std::string plain = dir_.file("plain");
  std::filesystem::create_directory(plain);
  WorkerAttempt a = attempt();
  a.settings.mode = WorktreeMode::kAuto;
  auto automatic = make(a);
  EXPECT_EQ(*automatic->prepare(plain, kNow), plain);
  EXPECT_NE(automatic->note().find("not in a git repository"), std::string::npos);
  a.settings.mode = WorktreeMode::kRequired;
  auto required = make(a);
  auto refused = required->prepare(plain, kNow);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
  // A directory that is not there is named as such, in either mode.
  for (WorktreeMode mode : {WorktreeMode::kAuto, WorktreeMode::kRequired}) {
    a.settings.mode = mode;
    auto missing = make(a)->prepare(dir_.file("gone"), kNow);
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("does not exist"), std::string::npos);
  }
  EXPECT_TRUE(store_->list_workers({}).value().empty());
}

TEST_F(WorkerRunTest, ABaseThatNamesNoCommitIsRefusedBeforeAnythingIsMade) {
  WorkerAttempt a = attempt();
  a.settings.base = "no-such-branch";
  auto run = make(a);
  auto refused = run->prepare(repo_, kNow);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("no-such-branch"), std::string::npos);
  EXPECT_TRUE(store_->list_workers({}).value().empty());
}

TEST(PlaceInWorktreeTest, ADirectoryKeepsItsPlaceUnderTheTop) {
  EXPECT_EQ(place_in_worktree("/r", "/r", "/w"), "/w");
  EXPECT_EQ(place_in_worktree("/r/a/b", "/r", "/w"), "/w/a/b");
  EXPECT_EQ(place_in_worktree("/rx/a", "/r", "/w"), "/w");
  EXPECT_EQ(place_in_worktree("/elsewhere", "/r", "/w"), "/w");
}

}  // namespace
}  // namespace orrery
