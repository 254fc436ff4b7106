// Workers and the merge queue, black-box (docs/workers.md): workflow steps
// in their own git worktrees on real repositories made here, a daemon that
// drives the merge queue, and what a person sees and does: merges in order,
// each verified on top of the last; conflicts, failed verifications and
// dirty checkouts that hold the worker and leave the target alone; a human
// commit during verification verified again, never overwritten; a killed
// supervisor, a restarted daemon and allowed_files that end on hold; resume
// and discard.
#include <sys/stat.h>

#include <cstdio>
#include <map>

#include "workflow_fixture.h"

namespace orrery {
namespace {

class Workers : public WorkflowFixture {
 protected:
  void SetUp() override {
    WorkflowFixture::SetUp();
    repo_ = tmp_ + "/repo";
    sh("git init --quiet -b main " + repo_ + " && git -C " + repo_ +
       " config user.name Person && git -C " + repo_ + " config user.email p@example.com");
    std::ofstream(repo_ + "/README") << "one\ntwo\nthree\n";
    sh("git -C " + repo_ + " add README && git -C " + repo_ + " commit --quiet -m first");
    base_ = git("rev-parse HEAD");
  }

  static void sh(const std::string& line) { ASSERT_EQ(std::system(line.c_str()), 0) << line; }

  // `git -C repo ARGS`'s stdout without its last newline.
  std::string git(const std::string& args) const {
    std::string text;
    FILE* pipe = ::popen(("git -C " + repo_ + " " + args + " 2>/dev/null").c_str(), "r");
    if (pipe == nullptr) return text;
    char buffer[4096];
    size_t got = 0;
    while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0) text.append(buffer, got);
    ::pclose(pipe);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  }

  static bool exists(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0;
  }

  // A step in its worktree of repo_ running the shell command.
  std::string step(const std::string& id, const std::string& command,
                   const std::string& more = "    merge: queue\n") const {
    return "  - id: " + id + "\n    target: {type: command, shell: true, command: '" + command +
           "'}\n    worktree: required\n    repo: " + repo_ + "\n" + more;
  }

  json workers(const std::string& state = "") const {
    return state.empty() ? json_of({"worker", "ls"}) : json_of({"worker", "ls", "--state", state});
  }

  json worker_of(const std::string& run_id, const std::string& step_id) const {
    for (const json& worker : json_of({"worker", "ls"})) {
      if (worker["workflow_run_id"] == run_id && worker["step_id"] == step_id) return worker;
    }
    return nullptr;
  }

  json queue() const { return json_of({"queue", "ls"}); }

  // Polls the queue until no entry waits or is being merged.
  json queue_settled(std::chrono::milliseconds limit = std::chrono::seconds(30)) const {
    json entries = queue();
    eventually(
        [&] {
          entries = queue();
          for (const json& entry : entries) {
            if (entry["state"] == "waiting" || entry["state"] == "ready") return false;
          }
          return !entries.empty();
        },
        limit);
    return entries;
  }

  json entry_of(const json& entries, const std::string& worker_id) const {
    for (const json& entry : entries) {
      if (entry["worker_id"] == worker_id) return entry;
    }
    return nullptr;
  }

  // Waits (up to 10 s) for the file to exist.
  static std::string wait_for(const std::string& file) {
    return "i=0; while [ ! -e " + file + " ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done";
  }

  std::string repo_;
  std::string base_;
};

TEST_F(Workers, TwoParallelStepsMergeInOrderEachVerifiedOnTopOfTheOther) {
  const std::string log = tmp_ + "/verified";
  std::ofstream(repo_ + "/mine.txt") << "untracked, the person's\n";
  create("pair",
         "name: pair\nsteps:\n" + step("a", "echo a > a.txt") + step("b", "echo b > b.txt"));
  start_daemon();
  json_of({"queue", "config", repo_, "--verify",
           "ls *.txt | tr \"\\n\" \" \" >> " + log + "; echo >> " + log});
  const json run = run_wait("pair");
  EXPECT_EQ(run["status"], "succeeded") << run.dump(1);
  const json entries = queue_settled();
  ASSERT_EQ(entries.size(), 2u) << entries.dump(1);
  for (const json& entry : entries) {
    EXPECT_EQ(entry["state"], "merged") << entry.dump(1);
    EXPECT_EQ(entry["verify"]["exit_code"], 0);
    EXPECT_EQ(entry["verify"]["tree"].get<std::string>().size(), 40u);
  }
  // The second verification ran on the first's merge: it saw both files
  // (and nothing of the person's checkout).
  const std::string verified = read_file(log);
  EXPECT_NE(verified.find("a.txt b.txt \n"), std::string::npos) << verified;
  EXPECT_EQ(verified.find("mine.txt"), std::string::npos) << verified;
  EXPECT_EQ(std::count(verified.begin(), verified.end(), '\n'), 2) << verified;
  // main moved by fast-forwards only: the base, then one commit each.
  EXPECT_EQ(git("rev-list --count main"), "3");
  EXPECT_EQ(git("merge-base --is-ancestor " + base_ + " main && echo yes"), "yes");
  // The person's checkout followed main and kept its own file; nothing else changed.
  EXPECT_EQ(read_file(repo_ + "/a.txt"), "a\n");
  EXPECT_EQ(read_file(repo_ + "/b.txt"), "b\n");
  EXPECT_EQ(read_file(repo_ + "/mine.txt"), "untracked, the person's\n");
  EXPECT_EQ(git("status --porcelain"), "?? mine.txt");
  // Merged workers leave no worktree or branch behind.
  for (const json& worker : workers()) {
    EXPECT_EQ(worker["state"], "merged") << worker.dump(1);
    EXPECT_FALSE(exists(worker["worktree_path"].get<std::string>()));
    EXPECT_EQ(git("branch --list " + worker["branch"].get<std::string>()), "");
  }
}

TEST_F(Workers, ManyParallelStepsOfOneRepositoryEachGetTheirWorktreeAndAllMerge) {
  // git does not guard two `worktree add` at once; orrery's steps take turns.
  std::string steps;
  for (int i = 0; i < 12; ++i) {
    std::string id("s");
    id += std::to_string(i);
    std::string command("echo ");
    command += id;
    command += " > ";
    command += id;
    command += ".txt";
    steps += step(id, command);
  }
  create("many", "name: many\nsteps:\n" + steps);
  start_daemon();
  json_of({"queue", "config", repo_, "--verify", "true"});
  const json run = run_wait("many", 0, {"--max-parallel", "12"});
  EXPECT_EQ(run["status"], "succeeded") << run.dump(1);
  const json entries = queue_settled(std::chrono::seconds(60));
  ASSERT_EQ(entries.size(), 12u) << entries.dump(1);
  for (const json& entry : entries) EXPECT_EQ(entry["state"], "merged") << entry.dump(1);
  EXPECT_EQ(git("rev-list --count main"), "13");
  EXPECT_EQ(git("worktree list --porcelain").find("worktrees/"), std::string::npos);
  // Twelve workers and entries made together: every handle their listings
  // show is taken back (docs/cli.md, "Ids").
  std::vector<std::string> worker_ids, entry_ids;
  for (const json& worker : workers()) worker_ids.push_back(worker["id"]);
  for (const json& entry : entries) entry_ids.push_back(entry["id"]);
  expect_handles({"worker", "ls"}, worker_ids, [](const std::string& handle) {
    return Args{"worker", "show", handle};
  });
  expect_handles({"queue", "ls"}, entry_ids, [](const std::string& handle) {
    return Args{"queue", "show", handle};
  });
}

TEST_F(Workers, TwoChangesToTheSameLineMergeTheFirstAndHoldTheSecondAsAConflict) {
  create("clash", "name: clash\nsteps:\n" + step("a", "printf \"one\\nA\\nthree\\n\" > README") +
                      step("b", "printf \"one\\nB\\nthree\\n\" > README"));
  start_daemon();
  json_of({"queue", "config", repo_, "--verify", "true"});
  const std::string run_id = run_wait("clash")["id"];
  const json entries = queue_settled();
  ASSERT_EQ(entries.size(), 2u) << entries.dump(1);
  int merged = 0;
  json conflict;
  for (const json& entry : entries) {
    if (entry["state"] == "merged") ++merged;
    if (entry["state"] == "conflict") conflict = entry;
  }
  EXPECT_EQ(merged, 1) << entries.dump(1);
  ASSERT_TRUE(conflict.is_object()) << entries.dump(1);
  EXPECT_EQ(conflict["conflict_files"], json::array({"README"}));
  const json held = json_of({"worker", "show", conflict["worker_id"]});
  EXPECT_EQ(held["state"], "hold") << held.dump(1);
  EXPECT_NE(held["hold_reason"].get<std::string>().find("conflict"), std::string::npos);
  // Its branch and worktree are kept; main has the first change only.
  EXPECT_NE(git("branch --list " + held["branch"].get<std::string>()), "");
  EXPECT_TRUE(exists(held["worktree_path"].get<std::string>()));
  EXPECT_EQ(git("rev-list --count main"), "2");
  const std::string readme = git("show main:README");
  EXPECT_TRUE(readme == "one\nA\nthree" || readme == "one\nB\nthree") << readme;
  // status names the held worker and counts the conflict.
  const json status = json_of({"status"});
  EXPECT_EQ(status["queue"]["conflict"], 1) << status.dump(1);
  ASSERT_EQ(status["workers_on_hold"].size(), 1u) << status.dump(1);
  EXPECT_EQ(status["workers_on_hold"][0]["workflow_run_id"], run_id);
  EXPECT_NE(run({"status"}).out.find("on hold"), std::string::npos);
}

TEST_F(Workers, TwoWorkersChangingTheSameFileAreNamedInTheJournalBeforeTheQueue) {
  // b changes README and waits; a changes README too and reports while b runs.
  const std::string gate = tmp_ + "/b-wrote";
  create("overlap",
         "name: overlap\nsteps:\n" + step("a", wait_for(gate) + "; echo A > README", "") +
             step("b", "echo B > README; touch " + gate + "; " + wait_for(tmp_ + "/never"),
                  "    timeout: 20s\n"));
  const std::string id = run_detached("overlap")["id"];
  json journal;
  ASSERT_TRUE(eventually(
      [&] {
        journal = events(id);
        for (const json& event : journal) {
          if (event["event_type"] == "worker_overlap") return true;
        }
        return false;
      },
      std::chrono::seconds(20)))
      << journal.dump(1);
  for (const json& event : journal) {
    if (event["event_type"] != "worker_overlap") continue;
    EXPECT_EQ(event["payload"]["files"], json::array({"README"})) << event.dump(1);
  }
  json_of({"workflow", "cancel", id});
}

TEST_F(Workers, AFailedVerificationRejectsTheEntryAndLeavesTheTargetUntouched) {
  create("bad", "name: bad\nsteps:\n" +
                    step("a", "echo a > a.txt",
                         "    merge: queue\n    verify: 'echo the suite broke; exit 3'\n"));
  start_daemon();
  run_wait("bad");
  const json entries = queue_settled();
  ASSERT_EQ(entries.size(), 1u);
  const json& entry = entries[0];
  EXPECT_EQ(entry["state"], "rejected") << entry.dump(1);
  EXPECT_EQ(entry["verify"]["exit_code"], 3);
  EXPECT_EQ(entry["verify"]["command"], "echo the suite broke; exit 3");
  EXPECT_NE(entry["verify"]["output_tail"].get<std::string>().find("the suite broke"),
            std::string::npos);
  EXPECT_EQ(git("rev-parse main"), base_);
  EXPECT_FALSE(exists(repo_ + "/a.txt"));
  EXPECT_EQ(json_of({"worker", "show", entry["worker_id"]})["state"], "hold");
  // queue show says what ran and how it ended.
  const RunResult shown = run({"queue", "show", entry["id"]});
  EXPECT_NE(shown.out.find("the suite broke"), std::string::npos) << shown.out;
}

TEST_F(Workers, NoVerificationCommandIsARejectionNotASkip) {
  create("none", "name: none\nsteps:\n" + step("a", "echo a > a.txt"));
  start_daemon();
  run_wait("none");
  const json entries = queue_settled();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["state"], "rejected");
  EXPECT_NE(entries[0]["reason"].get<std::string>().find("no verification command"),
            std::string::npos);
  EXPECT_EQ(git("rev-parse main"), base_);
  // Saying none on purpose merges, and says so on the entry.
  json_of({"queue", "config", repo_, "--verify", "none"});
  json_of({"queue", "retry", entries[0]["id"]});
  const json after = queue_settled();
  EXPECT_EQ(after[0]["state"], "merged") << after.dump(1);
  EXPECT_EQ(after[0]["verify"]["command"], "none");
}

TEST_F(Workers, AHumanCommitDuringVerificationIsVerifiedOnAndNeverOverwritten) {
  // The first verification commits to main in the person's checkout, as a
  // person would while the suite runs; the second finds the marker.
  const std::string marker = tmp_ + "/committed";
  const std::string verify = "if [ ! -e " + marker + " ]; then touch " + marker +
                             " && echo human > " + repo_ + "/human.txt && git -C " + repo_ +
                             " add human.txt && git -C " + repo_ +
                             " commit --quiet -m human; fi; test -f a.txt";
  create("race", "name: race\nsteps:\n" + step("a", "echo a > a.txt"));
  start_daemon();
  json_of({"queue", "config", repo_, "--verify", verify});
  run_wait("race");
  const json entries = queue_settled();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["state"], "merged") << entries[0].dump(1);
  const std::string human = git("log --format=%H --grep=human -n1 main");
  ASSERT_FALSE(human.empty());
  EXPECT_EQ(entries[0]["parent_revision"], human) << "verified again on the new tip";
  EXPECT_EQ(git("merge-base --is-ancestor " + human + " main && echo yes"), "yes");
  EXPECT_EQ(read_file(repo_ + "/human.txt"), "human\n");
  EXPECT_EQ(read_file(repo_ + "/a.txt"), "a\n");
  const json worker = json_of({"worker", "show", entries[0]["worker_id"]});
  bool again = false;
  for (const json& event : worker["events"]) {
    if (event["reason"].is_string() &&
        event["reason"].get<std::string>().find("verified again") != std::string::npos)
      again = true;
  }
  EXPECT_TRUE(again) << worker.dump(1);
}

TEST_F(Workers, ADirtyCheckoutOfTheTargetIsNeverClobbered) {
  create("dirty", "name: dirty\nsteps:\n" + step("a", "echo a > a.txt"));
  std::ofstream(repo_ + "/README") << "a person's edit\n";
  start_daemon();
  json_of({"queue", "config", repo_, "--verify", "true"});
  run_wait("dirty");
  const json entries = queue_settled();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["state"], "rejected") << entries[0].dump(1);
  EXPECT_NE(entries[0]["reason"].get<std::string>().find("uncommitted changes"), std::string::npos);
  EXPECT_EQ(read_file(repo_ + "/README"), "a person's edit\n");
  EXPECT_EQ(git("rev-parse main"), base_);
  EXPECT_FALSE(exists(repo_ + "/a.txt"));
  // Once the person commits, a retry merges on top of their commit.
  sh("git -C " + repo_ + " commit --quiet -am person");
  json_of({"queue", "retry", entries[0]["id"]});
  const json after = queue_settled();
  EXPECT_EQ(after[0]["state"], "merged") << after.dump(1);
  EXPECT_EQ(read_file(repo_ + "/a.txt"), "a\n");
  EXPECT_EQ(read_file(repo_ + "/README"), "a person's edit\n");
}

TEST_F(Workers, AChangeOutsideAllowedFilesHoldsTheWorkerWithTheFiles) {
  create("fence", "name: fence\nsteps:\n" +
                      step("a", "mkdir -p src && echo x > src/ok.c && echo y > Makefile",
                           "    merge: queue\n    allowed_files: [\"src/**\"]\n"));
  const json run = run_wait("fence", 1);
  EXPECT_EQ(run["status"], "failed");
  const json worker = worker_of(run["id"], "a");
  ASSERT_TRUE(worker.is_object());
  EXPECT_EQ(worker["state"], "hold");
  EXPECT_NE(worker["hold_reason"].get<std::string>().find("Makefile"), std::string::npos)
      << worker.dump(1);
  EXPECT_EQ(worker["hold_reason"].get<std::string>().find("src/ok.c"), std::string::npos);
  EXPECT_TRUE(queue().empty());
  // Fixed in the worktree by a person, then resumed: reported and queued.
  sh("git -C " + worker["worktree_path"].get<std::string>() + " rm --quiet Makefile && git -C " +
     worker["worktree_path"].get<std::string>() + " commit --quiet -m fix");
  json_of({"worker", "resume", worker["id"]});
  EXPECT_EQ(json_of({"worker", "show", worker["id"]})["state"], "reported");
  EXPECT_EQ(queue().size(), 1u);
}

// commit: never and work nobody committed (docs/workers.md, "Commits"):
// generated over what the step leaves — a new file, a changed one, a staged
// one, a removed one — the worker holds with the files named, nothing is
// queued or removed; committed by a person and resumed, it merges.
TEST_F(Workers, ACommitNeverStepThatLeavesUncommittedWorkHoldsAndKeepsIt) {
  json_of({"queue", "config", repo_, "--verify", "true"});
  const std::map<std::string, std::string> leftovers = {
      {"new", "echo n > new.txt"},
      {"changed", "echo changed >> README"},
      {"staged", "echo s > staged.txt && git add staged.txt"},
      {"removed", "rm README"},
  };
  start_daemon();
  for (const auto& [kind, command] : leftovers) {
    SCOPED_TRACE(kind);
    create("never-" + kind, "name: never-" + kind + "\nsteps:\n" +
                                step("a", command, "    merge: queue\n    commit: never\n"));
    const json run = run_wait("never-" + kind, 1);
    EXPECT_EQ(run["status"], "failed");
    const json worker = worker_of(run["id"], "a");
    ASSERT_TRUE(worker.is_object());
    EXPECT_EQ(worker["state"], "hold");
    const std::string reason = worker["hold_reason"];
    EXPECT_TRUE(contains(reason, "commit: never, and the step left 1 uncommitted file")) << reason;
    const std::string path = worker["worktree_path"];
    EXPECT_TRUE(exists(path));
    EXPECT_NE(git("-C " + path + " status --porcelain"), "");
    EXPECT_EQ(entry_of(queue(), worker["id"]), nullptr);
    // Committed by a person, then resumed: queued and merged.
    sh("git -C " + path + " add -A && git -C " + path + " commit --quiet -m " + kind);
    json_of({"worker", "resume", worker["id"]});
    const json entry = entry_of(queue_settled(), worker["id"]);
    ASSERT_TRUE(entry.is_object());
    EXPECT_EQ(entry["state"], "merged") << entry.dump(1);
  }
}

TEST_F(Workers, AKilledSupervisorHoldsTheWorkerAndResumeFinishesInTheSameWorktree) {
  const std::string pids = tmp_ + "/supervisor.pid";
  // Attempt 1 leaves a file in its worktree and waits; the next one finds
  // that file (the same worktree) and finishes.
  create("crash", "name: crash\nsteps:\n" +
                      step("a",
                           "if [ -e left.txt ]; then echo again > done.txt; else echo 1 > "
                           "left.txt; echo $PPID > " +
                               pids + "; exec sleep 30; fi",
                           "    retries: 3\n"));
  const std::string id = run_detached("crash")["id"];
  const int supervisor = pid_from_file(pids);
  ASSERT_GT(supervisor, 0);
  ASSERT_EQ(::kill(supervisor, SIGKILL), 0);
  json worker;
  ASSERT_TRUE(eventually(
      [&] {
        worker = worker_of(id, "a");
        return worker.is_object() && worker["state"] == "hold";
      },
      std::chrono::seconds(20)))
      << worker.dump(1);
  EXPECT_NE(worker["hold_reason"].get<std::string>().find("gone"), std::string::npos)
      << worker.dump(1);
  // It stays on hold: no attempt starts by itself.
  EXPECT_EQ(show_workflow_run(id)["status"], "running");
  json_of({"worker", "resume", worker["id"]});
  const json run = workflow_run_finished(id, std::chrono::seconds(20));
  EXPECT_EQ(run["status"], "succeeded") << run.dump(1);
  const json after = json_of({"worker", "show", worker["id"]});
  EXPECT_EQ(after["state"], "reported") << after.dump(1);
  EXPECT_EQ(after["worktree_path"], worker["worktree_path"]);
  EXPECT_EQ(after["changed_files"], json::array({"done.txt", "left.txt"}));
}

TEST_F(Workers, ADaemonStartedAfterACrashFindsTheWorktreesAndHoldsThem) {
  const std::string pids = tmp_ + "/pids";
  const std::string target_pid = tmp_ + "/target.pid";
  create("reboot",
         "name: reboot\nsteps:\n" + step("a", "echo 1 > left.txt; echo $$ > " + target_pid +
                                                  "; echo $PPID > " + pids + "; exec sleep 30"));
  const std::string id = run_detached("reboot")["id"];
  const int supervisor = pid_from_file(pids);
  const int target = pid_from_file(target_pid);
  ASSERT_GT(supervisor, 0);
  ASSERT_GT(target, 0);
  ::kill(-target, SIGKILL);
  // Everything stops at once, as in a power cut: the driver, the supervisor.
  const json before = show_workflow_run(id);
  const std::string driver = before["driver"];
  ::kill(std::stoi(driver.substr(driver.rfind(':') + 1)), SIGKILL);
  ::kill(supervisor, SIGKILL);
  start_daemon();
  json worker;
  ASSERT_TRUE(eventually(
      [&] {
        worker = worker_of(id, "a");
        return worker.is_object() && worker["state"] == "hold";
      },
      std::chrono::seconds(20)))
      << worker.dump(1) << daemon_log();
  EXPECT_TRUE(exists(worker["worktree_path"].get<std::string>() + "/left.txt"));
  // Discarding leaves no worktree or branch behind.
  json_of({"worker", "discard", worker["id"]});
  const json gone = json_of({"worker", "show", worker["id"]});
  EXPECT_EQ(gone["state"], "cancelled");
  EXPECT_FALSE(exists(worker["worktree_path"].get<std::string>()));
  EXPECT_EQ(git("branch --list " + worker["branch"].get<std::string>()), "");
  EXPECT_EQ(git("worktree list --porcelain").find(worker["worktree_path"].get<std::string>()),
            std::string::npos);
}

TEST_F(Workers, AutoRunsInAPlainDirectoryAndRequiredRefusesIt) {
  const std::string plain = tmp_ + "/plain";
  sh("mkdir -p " + plain);
  create("plain",
         "name: plain\nsteps:\n  - id: a\n    target: {type: command, shell: true, "
         "command: 'pwd > " +
             tmp_ + "/where', cwd: " + plain + "}\n    worktree: auto\n");
  const json plain_run = run_wait("plain");
  EXPECT_EQ(plain_run["status"], "succeeded");
  EXPECT_EQ(read_file(tmp_ + "/where"), plain + "\n");
  // The step's log says why it ran there.
  const std::string log = read_file(home_ + "/workflow-runs/" + plain_run["id"].get<std::string>() +
                                    "/steps/a/stderr.log");
  EXPECT_NE(log.find("is not in a git repository"), std::string::npos) << log;
  create("strict",
         "name: strict\nsteps:\n  - id: a\n    target: {type: command, shell: true, "
         "command: 'true', cwd: " +
             plain + "}\n    worktree: required\n");
  const json run = run_wait("strict", 1);
  EXPECT_EQ(run["status"], "failed");
  EXPECT_NE(step_of(run, "a")["error"].get<std::string>().find("not in a git repository"),
            std::string::npos)
      << run.dump(1);
  EXPECT_TRUE(workers().empty());
}

TEST_F(Workers, CommandsOnTheWrongStateAreRefusedAndChangeNothing) {
  create("one", "name: one\nsteps:\n" + step("a", "echo a > a.txt", ""));
  const std::string id = run_wait("one")["id"];
  const json worker = worker_of(id, "a");
  ASSERT_EQ(worker["state"], "reported");
  // resume needs hold; a reported worker keeps its state.
  const RunResult resumed = run({"worker", "resume", worker["id"]});
  EXPECT_EQ(resumed.exit_code, 4) << resumed.err;
  EXPECT_NE(resumed.err.find("reported"), std::string::npos) << resumed.err;
  const RunResult unknown = run({"worker", "show", "ffffffffffff"});
  EXPECT_EQ(unknown.exit_code, 3) << unknown.err;
  const RunResult bad_state = run({"worker", "ls", "--state", "sleeping"});
  EXPECT_EQ(bad_state.exit_code, 2) << bad_state.err;
  const RunResult bad_verify = run({"queue", "config", repo_, "--verify", ""});
  EXPECT_EQ(bad_verify.exit_code, 2) << bad_verify.err;
  const RunResult not_repo = run({"queue", "config", tmp_, "--verify", "true"});
  EXPECT_EQ(not_repo.exit_code, 2) << not_repo.err;
  EXPECT_EQ(json_of({"worker", "show", worker["id"]})["state"], "reported");
  // enqueue puts it in the queue once; a second time is a conflict.
  json_of({"worker", "enqueue", worker["id"]});
  const RunResult twice = run({"worker", "enqueue", worker["id"]});
  EXPECT_EQ(twice.exit_code, 4) << twice.err;
  EXPECT_EQ(queue().size(), 1u);
  // A merged or waiting entry is not retried.
  const RunResult retry = run({"queue", "retry", queue()[0]["id"]});
  EXPECT_EQ(retry.exit_code, 4) << retry.err;
  json_of({"queue", "drop", queue()[0]["id"]});
  EXPECT_EQ(queue()[0]["state"], "rejected");
  EXPECT_EQ(json_of({"worker", "show", worker["id"]})["state"], "hold");
}

// The refusal of a discard while the step runs gives advice that works:
// the command it names is run as printed, the worker goes on hold, and the
// discard then succeeds.
TEST_F(Workers, TheAdviceOfARefusedDiscardWorksAsPrinted) {
  const std::string started = tmp_ + "/started";
  create("busy", "name: busy\nsteps:\n" +
                     step("a", "echo 1 > left.txt; touch " + started + "; exec sleep 30", ""));
  const std::string id = run_detached("busy")["id"];
  json worker;
  ASSERT_TRUE(eventually(
      [&] {
        worker = worker_of(id, "a");
        return std::filesystem::exists(started) && worker.is_object() &&
               worker["state"] == "running";
      },
      std::chrono::seconds(20)))
      << worker.dump(1);
  const RunResult refused = run({"worker", "discard", worker["id"]});
  ASSERT_EQ(refused.exit_code, 4) << refused.err;
  const std::string advice = "orrery workflow cancel " + id;
  ASSERT_NE(refused.err.find(advice), std::string::npos) << refused.err;
  const RunResult cancelled = run({"workflow", "cancel", id});
  ASSERT_EQ(cancelled.exit_code, 0) << cancelled.err;
  ASSERT_TRUE(eventually(
      [&] {
        worker = json_of({"worker", "show", worker["id"]});
        return worker["state"] == "hold";
      },
      std::chrono::seconds(20)))
      << worker.dump(1);
  const RunResult discarded = run({"worker", "discard", worker["id"]});
  EXPECT_EQ(discarded.exit_code, 0) << discarded.err;
  EXPECT_EQ(json_of({"worker", "show", worker["id"]})["state"], "cancelled");
}

// Discard deletes only what is still what orrery recorded (docs/workers.md,
// "Resume, discard, retry"): generated over where the branch is (where the
// worker left it, moved by a person, deleted) x what is at the worktree's
// path (the worker's worktree, a person's directory, nothing).
TEST_F(Workers, DiscardRemovesOnlyTheWorktreeAndBranchOrreryRecorded) {
  create("keep", "name: keep\nsteps:\n" + step("a", "echo a > a.txt", ""));
  for (const std::string branch_case : {"recorded", "moved", "deleted"}) {
    for (const std::string path_case : {"worktree", "foreign", "gone"}) {
      SCOPED_TRACE(branch_case + " branch, " + path_case + " path");
      const json worker = worker_of(run_wait("keep")["id"], "a");
      ASSERT_EQ(worker["state"], "reported") << worker.dump(1);
      const std::string path = worker["worktree_path"];
      const std::string branch = worker["branch"];
      if (path_case != "worktree") sh("git -C " + repo_ + " worktree remove --force " + path);
      if (path_case == "foreign") sh("mkdir " + path + " && echo mine > " + path + "/mine.txt");
      if (branch_case == "moved" && path_case == "worktree") {
        sh("git -C " + path + " commit --quiet --allow-empty -m mine");
      } else if (branch_case == "moved") {
        sh("git -C " + repo_ + " branch --quiet -f " + branch + " main");
      } else if (branch_case == "deleted") {
        sh("git -C " + repo_ + " update-ref -d refs/heads/" + branch);
      }
      const std::string tip = git("rev-parse --verify --quiet refs/heads/" + branch);
      const RunResult discarded = run({"worker", "discard", worker["id"]});
      ASSERT_EQ(discarded.exit_code, 0) << discarded.err;
      EXPECT_EQ(json_of({"worker", "show", worker["id"]})["state"], "cancelled");
      if (path_case == "foreign") {
        EXPECT_EQ(read_file(path + "/mine.txt"), "mine\n");
        EXPECT_TRUE(contains(discarded.out, "kept: it is not the worktree of branch"))
            << discarded.out;
      } else {
        EXPECT_FALSE(exists(path));
      }
      EXPECT_EQ(git("worktree list --porcelain").find(path + "\n"), std::string::npos);
      if (branch_case == "moved") {
        EXPECT_EQ(git("rev-parse refs/heads/" + branch), tip) << "a moved branch is kept";
        EXPECT_TRUE(contains(discarded.out, "kept: branch " + branch)) << discarded.out;
      } else {
        EXPECT_EQ(git("branch --list " + branch), "");
      }
    }
  }
}

// A merged worker has nothing to discard: refused, and a branch a person
// has since made with its name is left alone.
TEST_F(Workers, DiscardIsRefusedForAMergedWorkerAndChangesNothing) {
  json_of({"queue", "config", repo_, "--verify", "true"});
  create("one", "name: one\nsteps:\n" + step("a", "echo a > a.txt"));
  start_daemon();
  const std::string id = run_wait("one")["id"];
  ASSERT_EQ(queue_settled()[0]["state"], "merged");
  const json worker = worker_of(id, "a");
  ASSERT_EQ(worker["state"], "merged");
  const std::string branch = worker["branch"];
  sh("git -C " + repo_ + " branch " + branch + " main~1");
  const std::string tip = git("rev-parse refs/heads/" + branch);
  const std::string error = expect_error({"worker", "discard", worker["id"]}, 4);
  EXPECT_TRUE(contains(error, "is merged")) << error;
  EXPECT_EQ(git("rev-parse refs/heads/" + branch), tip);
  EXPECT_EQ(json_of({"worker", "show", worker["id"]})["state"], "merged");
}

}  // namespace
}  // namespace orrery
