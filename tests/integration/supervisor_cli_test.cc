// Black-box tests of the rules that keep a run from staying `running` with
// nothing behind it (docs/execution.md, docs/cli.md): a supervisor stopped by
// a signal cancels its run; one killed outright is noticed by `trigger
// --wait` and `logs --follow` and cleaned up by `orrery recover`; a
// supervisor that cannot start fails its claimed run at once; what a target
// leaves running in its process group is stopped; the claim token is not on
// the supervisor's command line; the target's PATH is its own.
//
// Synchronisation: by `trigger --wait`, by pidfds, or by polling `run show`
// with a deadline. The one sleep waits for a lease to run out (time passing
// is the event).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "home_fixture.h"
#include "run_binary.h"
#include "support/process_group.h"

namespace orrery {
namespace {

using testing::group_alive;
using testing::read_file;

using nlohmann::json;
namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr int kExitWorkFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitInternal = 70;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Alive and not a zombie.
bool process_alive(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno != ESRCH;
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

// Waits (bounded) for a process to end, through a pidfd.
bool wait_for_exit(pid_t pid, int timeout_ms = 10'000) {
  const int pidfd = int(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) return !process_alive(pid);
  pollfd exited{pidfd, POLLIN, 0};
  const bool ended = ::poll(&exited, 1, timeout_ms) == 1;
  ::close(pidfd);
  return ended;
}

// Polls until `done` holds or the deadline passes.
bool eventually(const std::function<bool()>& done, milliseconds limit = milliseconds(10'000)) {
  const auto deadline = steady_clock::now() + limit;
  while (!done()) {
    if (steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return true;
}

// orrery started without waiting for it; stdout is read as it comes.
class Background {
 public:
  explicit Background(const std::vector<std::string>& args) {
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
    std::vector<std::string> argv{ORRERY_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> pointers;
    for (std::string& arg : argv) pointers.push_back(arg.data());
    pointers.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], STDOUT_FILENO);
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, STDERR_FILENO);
      ::execv(pointers[0], pointers.data());
      _exit(127);
    }
    ::close(out[1]);
    out_ = out[0];
  }
  ~Background() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) ::close(out_);
  }
  // Reads until `text` has been printed (true) or the deadline passes.
  bool read_until(const std::string& text, milliseconds limit = milliseconds(10'000)) {
    const auto deadline = steady_clock::now() + limit;
    while (!contains(printed_, text)) {
      const auto left = std::chrono::duration_cast<milliseconds>(deadline - steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd readable{out_, POLLIN, 0};
      if (::poll(&readable, 1, int(left.count())) != 1) return false;
      char buffer[4096];
      const ssize_t got = ::read(out_, buffer, sizeof buffer);
      if (got <= 0) return contains(printed_, text);
      printed_.append(buffer, size_t(got));
    }
    return true;
  }
  // Reads to the end and reaps it; its exit status.
  int finish() {
    char buffer[4096];
    ssize_t got;
    while ((got = ::read(out_, buffer, sizeof buffer)) > 0) printed_.append(buffer, size_t(got));
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  const std::string& printed() const { return printed_; }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  std::string printed_;
};

class SupervisorCli : public HomeFixture {
 protected:
  void TearDown() override {
    for (pid_t pgid : groups_to_kill_) ::kill(-pgid, SIGKILL);
    HomeFixture::TearDown();
  }

  json json_of(const Args& args, int exit_code = 0) const {
    Args full{"--json"};
    full.insert(full.end(), args.begin(), args.end());
    const RunResult result = run(full);
    EXPECT_EQ(result.exit_code, exit_code) << describe(with_home(full), result);
    return json::parse(result.out, nullptr, false);
  }

  void add(const std::string& name, const Args& options_and_target) const {
    Args args{"add", name, "--every", "1h"};
    args.insert(args.end(), options_and_target.begin(), options_and_target.end());
    const RunResult added = run(args);
    ASSERT_EQ(added.exit_code, 0) << describe(with_home(args), added);
  }

  json show(const std::string& run_id) const { return json_of({"run", "show", run_id}); }

  // What /proc says `pid` executes, or "" when it is gone.
  static std::string executable_of(pid_t pid) {
    std::error_code error;
    const auto target = fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", error);
    return error ? std::string() : target.string();
  }

  // `trigger LOOP` (detached), then waits until its target is recorded and
  // let run: a recorded target is held until the supervisor releases it
  // (docs/execution.md), and until then it executes the supervisor's binary.
  json trigger_started(const std::string& loop) {
    const json triggered = json_of({"trigger", loop});
    const std::string run_id = triggered["run_id"];
    json run;
    EXPECT_TRUE(eventually([&] {
      run = show(run_id);
      if (run["status"] != "running") return true;
      if (!run["pid"].is_number_integer() || !run["supervisor_pid"].is_number_integer()) {
        return false;
      }
      const std::string target = executable_of(run["pid"].get<pid_t>());
      return target.empty() || target != executable_of(run["supervisor_pid"].get<pid_t>());
    })) << run.dump()
        << "\nsupervisor.log: "
        << testing::read_file(home_ + "/runs/" + run_id + "/supervisor.log");
    if (run["pid"].is_number_integer()) groups_to_kill_.push_back(run["pid"].get<pid_t>());
    return run;
  }

  json wait_until_finished(const std::string& run_id) const {
    json run;
    EXPECT_TRUE(eventually([&] {
      run = show(run_id);
      return run["status"] != "running";
    })) << run.dump();
    return run;
  }

  std::string claim_token(const std::string& run_id) const {
    sqlite3* db = nullptr;
    std::string token;
    if (sqlite3_open_v2((home_ + "/orrery.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr) ==
        SQLITE_OK) {
      sqlite3_stmt* query = nullptr;
      sqlite3_prepare_v2(db, "SELECT claim_token FROM runs WHERE id = ?1", -1, &query, nullptr);
      sqlite3_bind_text(query, 1, run_id.c_str(), -1, SQLITE_TRANSIENT);
      if (sqlite3_step(query) == SQLITE_ROW) {
        token = reinterpret_cast<const char*>(sqlite3_column_text(query, 0));
      }
      sqlite3_finalize(query);
    }
    sqlite3_close(db);
    return token;
  }

  // Runs `shell` with --wait: by the time the run is finished with
  // `status`, nothing of the target's process group is left.
  void expect_leftovers_stopped(const std::string& shell, const std::string& status) {
    TearDown();
    SetUp();
    add("leaver", {"--shell", shell});
    const json run = json_of({"trigger", "leaver", "--wait"}, status == "succeeded" ? 0 : 1);
    EXPECT_EQ(run["status"], status) << shell << run.dump();
    ASSERT_TRUE(run["pid"].is_number_integer()) << run.dump();
    const pid_t group = run["pid"];
    groups_to_kill_.push_back(group);
    EXPECT_FALSE(group_alive(group)) << shell;
  }

  std::vector<pid_t> groups_to_kill_;
};

// ---------------------------------------------------------------------------
// (c) A stop signal to the supervisor cancels the run and stops the target.

TEST_F(SupervisorCli, AStopSignalToTheSupervisorCancelsTheRunAndStopsTheTargetGroup) {
  for (const auto& [signal, name] :
       {std::pair{SIGTERM, "SIGTERM"}, std::pair{SIGINT, "SIGINT"}, std::pair{SIGHUP, "SIGHUP"}}) {
    const std::string loop = std::string("stopped-") + name;
    // A grandchild in the group too: it must go as well.
    add(loop, {"--shell", "sleep 30 & echo started; wait"});
    const json started = trigger_started(loop);
    ASSERT_EQ(started["status"], "running") << started.dump();
    const pid_t target = started["pid"];
    const pid_t supervisor = started["supervisor_pid"];
    ASSERT_EQ(::kill(supervisor, signal), 0);
    EXPECT_TRUE(wait_for_exit(supervisor)) << name;
    const json run = wait_until_finished(started["id"]);
    EXPECT_EQ(run["status"], "cancelled") << run.dump();
    EXPECT_EQ(run["error"], std::string("the supervisor received ") + name);
    EXPECT_FALSE(group_alive(target)) << name;
  }
}

// ---------------------------------------------------------------------------
// (d), (e) A supervisor killed outright: noticed, then recovered.

TEST_F(SupervisorCli, TriggerWaitSaysWhenTheSupervisorIsGoneAndRecoverCleansUp) {
  // The target kills its own supervisor (its parent), then lingers.
  add("parricide", {"--shell", "kill -KILL $PPID; exec sleep 30"});
  const RunResult waited = run({"trigger", "parricide", "--wait"});
  EXPECT_EQ(waited.exit_code, kExitInternal) << describe({"trigger"}, waited);
  EXPECT_TRUE(contains(waited.err, "the supervisor of run ")) << waited.err;
  EXPECT_TRUE(contains(waited.err, ") is gone; run `orrery recover` to finish the run"))
      << waited.err;
  const json runs = json_of({"runs"});
  ASSERT_EQ(runs.size(), 1u);
  const std::string run_id = runs[0]["id"];
  EXPECT_EQ(runs[0]["status"], "running");
  ASSERT_TRUE(runs[0]["pid"].is_number_integer()) << runs.dump();
  const pid_t target = runs[0]["pid"];
  groups_to_kill_.push_back(target);
  EXPECT_TRUE(contains(waited.err, run_id)) << waited.err;

  // logs --follow says the same instead of waiting forever.
  const RunResult followed = run({"logs", "--follow", run_id});
  EXPECT_EQ(followed.exit_code, kExitInternal) << describe({"logs"}, followed);
  EXPECT_TRUE(contains(followed.err, "the supervisor of run " + run_id)) << followed.err;

  // recover: abandoned at once (the lease is 30 minutes), the target killed.
  EXPECT_TRUE(process_alive(target));
  const json recovered = json_of({"recover"});
  ASSERT_EQ(recovered["abandoned"].size(), 1u) << recovered.dump();
  EXPECT_EQ(recovered["abandoned"][0]["id"], run_id);
  EXPECT_TRUE(contains(recovered["abandoned"][0]["error"].get<std::string>(),
                       "died before the run finished"))
      << recovered.dump();
  EXPECT_EQ(recovered["killed_process_groups"], json::array({target}));
  EXPECT_EQ(recovered["recorded"], json::array());
  EXPECT_EQ(recovered["deferred"], json::array());
  EXPECT_TRUE(eventually([&] { return !group_alive(target); }));
  EXPECT_EQ(show(run_id)["status"], "abandoned");
  // A second recover has nothing to do.
  const RunResult again = run({"recover"});
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_EQ(again.out, "nothing to recover\n");
}

TEST_F(SupervisorCli, AKilledSupervisorIsNoticedByLogsFollowAndRecoverPrintsWhatItDid) {
  for (const int signal : {SIGKILL, SIGUSR1}) {  // SIGUSR1: a death it does not handle
    const std::string loop = "killed-" + std::to_string(signal);
    add(loop, {"--shell", "echo before; exec sleep 30"});
    const json started = trigger_started(loop);
    const std::string run_id = started["id"];
    const pid_t target = started["pid"];
    const pid_t supervisor = started["supervisor_pid"];
    // Killed once its output is in the log: what it wrote before is kept.
    const std::string stdout_log = home_ + "/runs/" + run_id + "/stdout.log";
    ASSERT_TRUE(eventually([&] { return testing::read_file(stdout_log) == "before\n"; }));
    ASSERT_EQ(::kill(supervisor, signal), 0);
    ASSERT_TRUE(wait_for_exit(supervisor));
    const RunResult followed = run({"logs", "-f", run_id});
    EXPECT_EQ(followed.exit_code, kExitInternal);
    EXPECT_EQ(followed.out, "before\n");
    EXPECT_EQ(followed.err, "orrery: the supervisor of run " + run_id + " (pid " +
                                std::to_string(supervisor) +
                                ") is gone; run `orrery recover` to finish the run\n");
    const RunResult recovered = run({"recover"});
    EXPECT_EQ(recovered.exit_code, 0);
    EXPECT_EQ(recovered.out, "abandoned run " + run_id + " (" + loop + "): the supervisor (pid " +
                                 std::to_string(supervisor) +
                                 ") died before the run finished\nkilled process group " +
                                 std::to_string(target) + "\n");
    EXPECT_TRUE(eventually([&] { return !group_alive(target); }));
  }
}

// A supervisor stopped past its lease, then continued: its heartbeat is
// refused, so it kills its target and leaves the run to recovery.
TEST_F(SupervisorCli, ASupervisorStoppedPastItsLeaseStopsItsTargetWhenContinued) {
  // A lease long enough for a supervisor under a loaded, sanitized build to
  // record its target, short enough for the test.
  add("frozen", {"--lease", "3s", "--shell", "exec sleep 30"});
  const json started = trigger_started("frozen");
  const pid_t target = started["pid"];
  const pid_t supervisor = started["supervisor_pid"];
  ASSERT_EQ(::kill(supervisor, SIGSTOP), 0);
  std::this_thread::sleep_for(milliseconds(3500));  // the lease (3 s) runs out
  ASSERT_EQ(::kill(supervisor, SIGCONT), 0);
  EXPECT_TRUE(wait_for_exit(supervisor));
  EXPECT_TRUE(eventually([&] { return !group_alive(target); }));
  EXPECT_EQ(show(started["id"])["status"], "running");  // the claim is not its to finish
  const json recovered = json_of({"recover"});
  ASSERT_EQ(recovered["abandoned"].size(), 1u) << recovered.dump();
  EXPECT_EQ(show(started["id"])["status"], "abandoned");
}

// ---------------------------------------------------------------------------
// (b) A supervisor that cannot start fails its claimed run at once.

TEST_F(SupervisorCli, AnUnusableRunsDirectoryFailsTheClaimedRunAtOnce) {
  struct Breakage {
    const char* name;
    std::function<void(const std::string& runs)> apply;
  };
  const Breakage breakages[] = {
      {"runs is a file", [](const std::string& runs) { std::ofstream(runs) << "not a dir"; }},
      {"runs is a FIFO", [](const std::string& runs) { ::mkfifo(runs.c_str(), 0600); }},
      {"runs is a symlink to a file",
       [](const std::string& runs) {
         std::ofstream(runs + ".target") << "x";
         fs::create_symlink(runs + ".target", runs);
       }},
  };
  for (const Breakage& breakage : breakages) {
    TearDown();
    SetUp();
    add("doomed", {"--", "/bin/true"});
    breakage.apply(home_ + "/runs");
    for (const bool wait : {false, true}) {
      Args args{"trigger", "doomed"};
      if (wait) args.push_back("--wait");
      const RunResult triggered = run(args);
      // A failed run (exit 1), not a usage error: the command line was right.
      EXPECT_EQ(triggered.exit_code, kExitWorkFailed) << breakage.name << describe(args, triggered);
      EXPECT_TRUE(contains(triggered.err, "failed: the supervisor could not start: "))
          << triggered.err;
    }
    const json runs = json_of({"runs"});
    ASSERT_EQ(runs.size(), 2u) << breakage.name;
    for (const json& run : runs) {
      EXPECT_EQ(run["status"], "failed") << breakage.name << run.dump();
      EXPECT_TRUE(contains(run["error"].get<std::string>(), "the supervisor could not start: "))
          << run.dump();
    }
  }
}

// ---------------------------------------------------------------------------
// B8: what the target leaves in its group is stopped when it exits.

TEST_F(SupervisorCli, BackgroundChildrenAreStoppedAfterSuccessAndAfterFailure) {
  expect_leftovers_stopped("echo p; (sleep 31) & echo done", "succeeded");
  expect_leftovers_stopped("(sleep 31 >/dev/null 2>&1) & exit 3", "failed");
  expect_leftovers_stopped("sleep 31 & sleep 32 & kill -TERM $$", "failed");
}

// SIGTERM ignored: SIGKILL after the grace (2 s) ends it.
TEST_F(SupervisorCli, ABackgroundChildIgnoringTermIsKilledAfterTheGrace) {
  expect_leftovers_stopped("(trap '' TERM; sleep 31) & echo ignoring", "succeeded");
}

// ---------------------------------------------------------------------------
// F: the claim token is not on the supervisor's command line.

TEST_F(SupervisorCli, TheClaimTokenIsNotOnTheSupervisorsCommandLine) {
  const std::string gate = tmp_ + "/gate";
  ASSERT_EQ(::mkfifo(gate.c_str(), 0600), 0);
  add("secretive", {"--shell", "read line < '" + gate + "'"});
  const json started = trigger_started("secretive");
  const pid_t supervisor = started["supervisor_pid"];
  const std::string token = claim_token(started["id"]);
  ASSERT_GE(token.size(), 10u);
  const std::string cmdline = read_file("/proc/" + std::to_string(supervisor) + "/cmdline");
  EXPECT_TRUE(contains(cmdline, "supervise")) << cmdline;
  EXPECT_FALSE(contains(cmdline, token)) << cmdline;
  EXPECT_FALSE(contains(cmdline, token.substr(token.find('-') + 1))) << cmdline;
  // Nor in the target's environment.
  const std::string environ =
      read_file("/proc/" + std::to_string(started["pid"].get<int>()) + "/environ");
  EXPECT_FALSE(contains(environ, token));
  const int writer = ::open(gate.c_str(), O_WRONLY);
  ASSERT_GE(writer, 0);
  ASSERT_EQ(::write(writer, "go\n", 3), 3);
  ::close(writer);
  EXPECT_EQ(wait_until_finished(started["id"])["status"], "succeeded");
}

// ---------------------------------------------------------------------------
// F: the target's executable is found on its own PATH (--env PATH=…).

TEST_F(SupervisorCli, TheTargetsExecutableIsFoundOnItsOwnPath) {
  const std::string bin = tmp_ + "/bin";
  fs::create_directory(bin);
  std::ofstream(bin + "/only-here") << "#!/bin/sh\necho found on its own PATH\n";
  ::chmod((bin + "/only-here").c_str(), 0755);
  add("own-path", {"--env", "PATH=" + bin + ":/usr/bin:/bin", "--", "only-here"});
  const json found = json_of({"trigger", "own-path", "--wait"});
  EXPECT_EQ(found["status"], "succeeded") << found.dump();
  EXPECT_EQ(found["stdout"], "found on its own PATH\n");
  // A PATH without it: not found, though the supervisor's PATH is the same.
  add("other-path", {"--env", "PATH=/usr/bin:/bin", "--", "only-here"});
  const json missing = json_of({"trigger", "other-path", "--wait"}, 1);
  EXPECT_EQ(missing["error"], "executable not found in PATH: only-here");
  // And the target's PATH decides for ordinary programs too.
  add("no-path", {"--env", "PATH=" + bin, "--", "true"});
  const json no_true = json_of({"trigger", "no-path", "--wait"}, 1);
  EXPECT_EQ(no_true["error"], "executable not found in PATH: true");
}

// ---------------------------------------------------------------------------
// logs --follow prints output while the run is still running.

TEST_F(SupervisorCli, LogsFollowPrintsOutputBeforeTheRunEnds) {
  const std::string gate = tmp_ + "/gate";
  ASSERT_EQ(::mkfifo(gate.c_str(), 0600), 0);
  add("gated", {"--shell", "echo first; read line < '" + gate + "'; echo \"then $line\""});
  const json started = trigger_started("gated");
  const std::string run_id = started["id"];
  Background follow(with_home({"logs", "--follow", run_id}));
  ASSERT_TRUE(follow.read_until("first\n")) << follow.printed();
  EXPECT_EQ(show(run_id)["status"], "running");  // printed while it runs
  const int writer = ::open(gate.c_str(), O_WRONLY);
  ASSERT_GE(writer, 0);
  ASSERT_EQ(::write(writer, "second\n", 7), 7);
  ::close(writer);
  EXPECT_EQ(follow.finish(), 0);
  EXPECT_EQ(follow.printed(), "first\nthen second\n");
  EXPECT_EQ(show(run_id)["status"], "succeeded");
}

// ---------------------------------------------------------------------------
// A kept outcome (what a supervisor writes when it cannot finish the run in
// the store) is recorded by `orrery recover` instead of abandoning the run.

TEST_F(SupervisorCli, RecoverRecordsTheOutcomeASupervisorKept) {
  add("kept", {"--shell", "exec sleep 30"});
  const json started = trigger_started("kept");
  const std::string run_id = started["id"];
  const pid_t supervisor = started["supervisor_pid"];
  const std::string token = claim_token(run_id);
  ASSERT_EQ(::kill(supervisor, SIGKILL), 0);
  ASSERT_TRUE(wait_for_exit(supervisor));
  // As the supervisor writes it (docs/execution.md, "Heartbeats and finishing").
  const json kept{{"claim_token", token},      {"finished_at", 1'780'000'000'000},
                  {"status", "failed"},        {"exit_code", 4},
                  {"signal", nullptr},         {"error", "exit status 4"},
                  {"stdout", "kept output\n"}, {"stderr", ""},
                  {"input_tokens", nullptr},   {"output_tokens", nullptr},
                  {"cost_usd", nullptr},       {"usage_limited", false}};
  std::ofstream(home_ + "/runs/" + run_id + "/outcome.json") << kept.dump();
  // trigger --wait and logs --follow point at recover to record it.
  const RunResult followed = run({"logs", "-f", run_id});
  EXPECT_EQ(followed.exit_code, kExitInternal);
  EXPECT_TRUE(contains(followed.err, "run `orrery recover` to record the outcome it kept"))
      << followed.err;
  const RunResult recovered = run({"recover"});
  EXPECT_EQ(recovered.exit_code, 0);
  EXPECT_EQ(lines(recovered.out).front(),
            "recorded the kept outcome of run " + run_id + " (kept): failed: exit status 4");
  const json run = show(run_id);
  EXPECT_EQ(run["status"], "failed");
  EXPECT_EQ(run["exit_code"], 4);
  EXPECT_EQ(run["stdout"], "kept output\n");
  EXPECT_EQ(run["attempt"], 1);
  EXPECT_TRUE(eventually([&] { return !group_alive(started["pid"].get<pid_t>()); }));
}

// A damaged outcome.json is reported for its run; the other runs are
// recovered all the same, and the exit status says something was left.
TEST_F(SupervisorCli, RecoverReportsADamagedKeptOutcomeAndRecoversTheOthers) {
  std::vector<std::string> ids;
  for (const std::string name : {"damaged", "fine"}) {
    add(name, {"--shell", "exec sleep 30"});
    const json started = trigger_started(name);
    ids.push_back(started["id"]);
    const pid_t supervisor = started["supervisor_pid"];
    ASSERT_EQ(::kill(supervisor, SIGKILL), 0);
    ASSERT_TRUE(wait_for_exit(supervisor));
  }
  std::ofstream(home_ + "/runs/" + ids[0] + "/outcome.json") << "{\"claim_token\": ";
  const RunResult recovered = run({"recover"});
  EXPECT_EQ(recovered.exit_code, 1) << recovered.err;
  EXPECT_TRUE(contains(recovered.out, "abandoned run " + ids[1] + " (fine)")) << recovered.out;
  EXPECT_TRUE(contains(recovered.out, "could not recover run " + ids[0] + ": kept outcome " +
                                          home_ + "/runs/" + ids[0] + "/outcome.json is damaged"))
      << recovered.out;
  EXPECT_EQ(show(ids[0])["status"], "running");
  EXPECT_EQ(show(ids[1])["status"], "abandoned");
  const json document = json_of({"recover"}, 1);
  ASSERT_EQ(document["problems"].size(), 1u);
  EXPECT_EQ(document["problems"][0]["run_id"], ids[0]);
}

// ---------------------------------------------------------------------------
// recover with nothing to do.

TEST_F(SupervisorCli, RecoverWithNothingToDoSaysSo) {
  const RunResult human = run({"recover"});
  EXPECT_EQ(human.exit_code, 0);
  EXPECT_EQ(human.out, "nothing to recover\n");
  const json document = json_of({"recover"});
  EXPECT_EQ(document, json({{"recorded", json::array()},
                            {"abandoned", json::array()},
                            {"deferred", json::array()},
                            {"killed_process_groups", json::array()},
                            {"problems", json::array()}}));
}

}  // namespace
}  // namespace orrery
