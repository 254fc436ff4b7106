// A merge lands exactly once whatever kills its driver (docs/workers.md,
// "The merge queue"), black-box, on each backend and for each strategy:
// `git` on the driver's PATH is a wrapper that kills its parent (the
// `orrery drive-queue` process) with SIGKILL right after its N-th call did
// its work, for every N until the driver gets through; the next driver,
// started at once (the dead one's lease names a process that is gone),
// finishes the entry. Each entry's change is on the target once, as one
// first-parent commit, and nothing of the merge is left behind.
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <csignal>
#include <deque>
#include <map>
#include <memory>
#include <thread>

#include "support/pg_test_database.h"
#include "workflow_fixture.h"

namespace orrery {
namespace {

constexpr int kStepsPerRun = 16;

struct KillCase {
  std::string backend;
  std::string strategy;
};

void PrintTo(const KillCase& kill_case, std::ostream* out) {
  *out << kill_case.backend << " " << kill_case.strategy;
}

std::string case_name(const ::testing::TestParamInfo<KillCase>& info) {
  return info.param.backend + "_" + info.param.strategy;
}

class MergeKill : public WorkflowFixture, public ::testing::WithParamInterface<KillCase> {
 protected:
  void SetUp() override {
    if (GetParam().backend == "postgres") {
      database_ = std::make_unique<testing::PgTestDatabase>();
      ASSERT_TRUE(database_->ok());
      setenv("ORRERY_DB", database_->url().c_str(), 1);
    }
    WorkflowFixture::SetUp();
    repo_ = tmp_ + "/repo";
    sh("git init --quiet -b main " + repo_ + " && git -C " + repo_ +
       " config user.name Person && git -C " + repo_ + " config user.email p@example.com");
    write_file("repo/README", "one\n");
    sh("git -C " + repo_ + " add README && git -C " + repo_ + " commit --quiet -m first");
    sh("mkdir " + tmp_ + "/bin");
    // Counts its calls in $KILL_COUNTER; at call $KILL_AT, once git is done,
    // kills its parent.
    write_file("bin/git",
               "#!/bin/sh\n"
               "n=$(( $(cat \"$KILL_COUNTER\" 2>/dev/null || echo 0) + 1 ))\n"
               "echo $n > \"$KILL_COUNTER\"\n"
               "/usr/bin/git \"$@\"\n"
               "status=$?\n"
               "if [ \"$n\" = \"$KILL_AT\" ]; then kill -9 $PPID; fi\n"
               "exit $status\n");
    sh("chmod +x " + tmp_ + "/bin/git");
    std::string steps;
    for (int n = 0; n < kStepsPerRun; ++n) {
      std::string id = "s";
      id += std::to_string(n);
      steps += "  - id: " + id + "\n    target: {type: command, shell: true, command: 'echo " + id +
               "-$ORRERY_WORKFLOW_RUN_ID > " + id +
               ".txt'}\n    worktree: required\n    repo: " + repo_ + "\n";
    }
    create("many", "name: many\nsteps:\n" + steps);
    json_of({"queue", "config", repo_, "--verify", "true", "--strategy", GetParam().strategy});
  }

  void TearDown() override {
    WorkflowFixture::TearDown();
    unsetenv("ORRERY_DB");
    database_.reset();
  }

  static void sh(const std::string& line) { ASSERT_EQ(std::system(line.c_str()), 0) << line; }

  // `git -C repo ARGS`'s stdout without its last newline.
  std::string git(const std::string& args) const {
    const RunResult result = run_program("/usr/bin/git", with_repo(args));
    std::string text = result.out;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  }

  std::vector<std::string> with_repo(const std::string& args) const {
    std::vector<std::string> argv{"-C", repo_};
    std::istringstream words(args);
    for (std::string word; words >> word;) argv.push_back(word);
    return argv;
  }

  // A reported worker not yet in the queue (a run of `many` makes them).
  json next_worker() {
    if (pool_.empty()) {
      const std::string run_id = run_wait("many")["id"];
      for (const json& worker : json_of({"worker", "ls", "--state", "reported"})) {
        if (worker["workflow_run_id"] == run_id) pool_.push_back(worker);
      }
      EXPECT_EQ(pool_.size(), size_t(kStepsPerRun));
    }
    json worker = pool_.front();
    pool_.pop_front();
    return worker;
  }

  // `drive-queue` with the wrapper first on PATH; kill_at 0: never killed.
  RunResult drive(int kill_at) const {
    const std::string counter = tmp_ + "/calls";
    std::remove(counter.c_str());
    return run({"drive-queue", repo_, "--target", "main", "--token-fd", "0"},
               {{"PATH", tmp_ + "/bin:" + std::string(std::getenv("PATH"))},
                {"KILL_COUNTER", counter},
                {"KILL_AT", std::to_string(kill_at)}});
  }

  std::unique_ptr<testing::PgTestDatabase> database_;
  std::string repo_;
  std::deque<json> pool_;
};

TEST_P(MergeKill, AnEntryLandsOnceWhicheverGitCallItsDriverIsKilledAfter) {
  std::map<std::string, json> worker_of_entry;  // by entry id
  for (int kill_at = 1;; ++kill_at) {
    SCOPED_TRACE(::testing::Message() << "killed after git call " << kill_at);
    const json worker = next_worker();
    const std::string entry_id = json_of({"worker", "enqueue", worker["id"]})["id"];
    worker_of_entry[entry_id] = worker;
    const std::string before = git("rev-parse main");
    const RunResult first = drive(kill_at);
    const bool killed = first.term_signal == SIGKILL;
    if (killed) {
      const RunResult second = drive(0);
      ASSERT_EQ(second.exit_code, 0) << second.err;
    } else {
      ASSERT_EQ(first.exit_code, 0) << first.err;
    }
    EXPECT_EQ(git("rev-list --count --first-parent " + before + "..main"), "1");
    const std::string step = worker["step_id"];
    EXPECT_EQ(git("show main:" + step + ".txt"),
              step + "-" + std::string(worker["workflow_run_id"]));
    const std::string branch = worker["branch"];
    EXPECT_EQ(git("branch --list " + branch), "");
    // The main checkout and the pool's worktrees only: no scratch, not this one.
    const std::string listed = git("worktree list --porcelain");
    EXPECT_EQ(listed.find(std::string(worker["worktree_path"]) + "\n"), std::string::npos);
    EXPECT_EQ(listed.find("/queue/"), std::string::npos) << listed;
    if (!killed) break;  // the driver made fewer calls than kill_at
    ASSERT_LT(kill_at, 100) << "a merge that never ends";
  }
  EXPECT_GT(worker_of_entry.size(), 5u);
  // Every entry merged at the commit that followed its tip, its worker merged.
  for (const json& entry : json_of({"queue", "ls"})) {
    SCOPED_TRACE(entry.dump());
    EXPECT_EQ(entry["state"], "merged");
    const std::string merge_commit = entry["merge_commit"];
    EXPECT_EQ(git("rev-parse " + merge_commit + "^1"), std::string(entry["parent_revision"]));
    worker_of_entry.erase(entry["id"]);
  }
  EXPECT_TRUE(worker_of_entry.empty());
  for (const json& worker : json_of({"worker", "ls"})) {
    if (worker["state"] != "reported") {
      EXPECT_EQ(worker["state"], "merged") << worker.dump();
    }
  }
}

// A verification whose driver is killed mid-run does not go on without it:
// the background process it started ends with the driver, and the next
// driver verifies and merges.
TEST_P(MergeKill, AVerificationDoesNotOutliveItsKilledDriver) {
  const std::string fifo = tmp_ + "/verifier";
  sh("mkfifo " + fifo);
  // The first verification starts a process that would run for ever, says
  // its pid, and kills its driver; the next one passes.
  json_of({"queue", "config", repo_, "--verify",
           "if [ ! -e " + tmp_ + "/once ]; then touch " + tmp_ + "/once; sleep 1000 & echo $! > " +
               fifo + "; kill -9 $PPID; wait; fi; true"});
  create("one",
         "name: one\nsteps:\n  - id: a\n    target: {type: command, shell: true, command: "
         "'echo a > a.txt'}\n    worktree: required\n    repo: " +
             repo_ + "\n");
  const std::string run_id = run_wait("one")["id"];
  const json worker = json_of({"worker", "ls", "--state", "reported"})[0];
  ASSERT_EQ(worker["workflow_run_id"], run_id);
  const std::string entry_id = json_of({"worker", "enqueue", worker["id"]})["id"];
  pid_t background = 0;
  std::thread reader([&] {
    std::ifstream pid_text(fifo);
    pid_text >> background;
  });
  const RunResult first = drive(0);
  reader.join();
  EXPECT_EQ(first.term_signal, SIGKILL) << first.err;
  ASSERT_GT(background, 0);
  const int watched = int(::syscall(SYS_pidfd_open, background, 0));
  if (watched >= 0) {  // else it has ended already
    pollfd ended{watched, POLLIN, 0};
    EXPECT_EQ(::poll(&ended, 1, 20'000), 1) << "the verification outlived its driver";
    ::close(watched);
  }
  ::kill(background, SIGKILL);
  ASSERT_EQ(drive(0).exit_code, 0);
  EXPECT_EQ(json_of({"queue", "show", entry_id})["state"], "merged");
}

INSTANTIATE_TEST_SUITE_P(
    EveryStrategy, MergeKill,
    ::testing::Values(KillCase{"sqlite", "rebase"}, KillCase{"sqlite", "merge"},
                      KillCase{"sqlite", "squash"}, KillCase{"postgres", "rebase"},
                      KillCase{"postgres", "merge"}, KillCase{"postgres", "squash"}),
    case_name);

}  // namespace
}  // namespace orrery
