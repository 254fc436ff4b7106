// Black-box tests of several runners on one PostgreSQL database
// (docs/daemon.md, "Runners"): three `orrery daemon` processes, each with
// its own data directory, on one database of the test cluster. One holds the
// lease and plans; every one claims the pending runs its labels allow; a
// loop's --machine selector routes its runs; a runner killed with its
// supervisor mid-run has the run abandoned and retried on another runner; a
// killed scheduler is replaced within the lease's ttl.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_fixture.h"
#include "run_binary.h"
#include "support/numbered.h"
#include "support/pg_test_database.h"
#include "support/test_files.h"

namespace orrery {
namespace {

using testing::int_or_zero;

namespace fs = std::filesystem;
using testing::pg_query;
using testing::PgTestDatabase;
using Clock = std::chrono::steady_clock;

constexpr int kTtlSeconds = 3;

// One daemon: its process, data directory and log.
struct Runner {
  pid_t pid = -1;
  bool killed = false;  // reaped already
  std::string home;
  std::string log;
  std::string host;
  std::string claimant() const { return "daemon@" + host + ":" + std::to_string(pid); }
};

std::string this_host() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

class PostgresRunners : public CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    ASSERT_TRUE(database_.ok());
    url_ = database_.url();
  }

  void TearDown() override {
    for (Runner& runner : runners_) stop(runner);
    // What runs still runs: its supervisor and target.
    std::stringstream left(
        polled("SELECT string_agg(COALESCE(supervisor_pid, 0) || ' ' || COALESCE(pgid, 0), ' ') "
               "FROM runs WHERE status = 'running'"));
    for (int supervisor = 0, group = 0; left >> supervisor >> group;) {
      if (supervisor > 1) ::kill(supervisor, SIGKILL);
      if (group > 1) ::kill(-group, SIGKILL);
    }
    for (int pgid : targets_) ::kill(-pgid, SIGKILL);
    CliFixture::TearDown();
  }

  // Starts `orrery daemon` with its own home and `labels`; waits for its row
  // among the runners. With `host`, the daemon runs in a UTS namespace of its
  // own under that host name, as on another machine (unshare(1); a user
  // namespace too when the test is not root).
  Runner& start_runner(const std::string& name, const std::vector<std::string>& labels = {},
                       const std::string& host = "") {
    Runner runner;
    runner.home = tmp_ + "/" + name;
    runner.log = tmp_ + "/" + name + ".log";
    runner.host = host.empty() ? this_host() : host;
    std::vector<std::string> args;
    if (!host.empty()) {
      args = {"/usr/bin/unshare", "--uts"};
      if (geteuid() != 0) args.push_back("--map-root-user");
      args.insert(args.end(), {"/bin/sh", "-c", "hostname \"$0\" && exec \"$@\"", host});
    }
    args.insert(args.end(), {ORRERY_BINARY, "--home", runner.home, "--db", url_, "daemon",
                             "--lease-ttl", std::to_string(kTtlSeconds) + "s"});
    for (const std::string& label : labels) {
      args.push_back("--label");
      args.push_back(label);
    }
    runner.pid = fork();
    if (runner.pid == 0) {
      const int null = open("/dev/null", O_RDWR);
      const int log = open(runner.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(null, STDIN_FILENO);
      dup2(null, STDOUT_FILENO);
      dup2(log, STDERR_FILENO);
      std::vector<char*> argv;
      for (std::string& arg : args) argv.push_back(arg.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    runners_.push_back(runner);
    const std::string id = runner.claimant();
    EXPECT_TRUE(wait_until([&] {
      return polled("SELECT count(*) FROM runners WHERE id = '" + id + "'") == "1";
    })) << name
        << " did not register\n"
        << logs();
    return runners_.back();
  }

  // Adds a loop of pool=w whose first run hangs until killed (the next
  // succeeds), waits for it to run on `first` or `second`, and loses that
  // runner's host: the daemon, the run's supervisor and its target, all
  // SIGKILLed. Returns the other runner.
  Runner& lose_the_runner_of_a_hanging_run(Runner& first, Runner& second) {
    const std::string marker = tmp_ + "/started-once";
    cli({"add", "work", "--at", "+1s", "--machine", "pool=w", "--max-attempts", "2",
         "--retry-delay", "1s", "--lease", "3s", "--", "sh", "-c",
         "test -e " + marker + " && exit 0; touch " + marker + "; sleep 600"});
    EXPECT_TRUE(wait_until([&] { return count("status = 'running' AND pid IS NOT NULL") == 1; }))
        << logs();
    const std::string holder = polled("SELECT claimed_by FROM runs WHERE status = 'running'");
    Runner& lost = holder == first.claimant() ? first : second;
    EXPECT_EQ(holder, lost.claimant()) << logs();
    const int supervisor =
        int_or_zero(polled("SELECT supervisor_pid FROM runs WHERE status = 'running'"));
    const int group = int_or_zero(polled("SELECT pgid FROM runs WHERE status = 'running'"));
    kill_now(lost);
    if (supervisor > 1) ::kill(supervisor, SIGKILL);
    if (group > 1) {
      targets_.push_back(group);
      ::kill(-group, SIGKILL);
    }
    return &lost == &first ? second : first;
  }

  static void stop(Runner& runner) {
    if (runner.pid <= 0 || runner.killed) return;
    ::kill(runner.pid, SIGTERM);
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    while (waitpid(runner.pid, nullptr, WNOHANG) != runner.pid) {
      if (Clock::now() >= deadline) {
        ::kill(runner.pid, SIGKILL);
        waitpid(runner.pid, nullptr, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    runner.pid = -1;
  }

  static void kill_now(Runner& runner) {
    ::kill(runner.pid, SIGKILL);
    waitpid(runner.pid, nullptr, 0);
    runner.killed = true;
  }

  std::string sql(const std::string& text) const {
    auto result = pg_query(url_, text);
    EXPECT_TRUE(result.ok()) << (result ? "" : result.error().message);
    return result ? *result : "";
  }

  // A query while daemons may still be migrating the database: an error is "".
  std::string polled(const std::string& text) const {
    auto result = pg_query(url_, text);
    return result ? *result : "";
  }

  int count(const std::string& where) const {
    return int_or_zero(polled("SELECT count(*) FROM runs WHERE " + where));
  }

  // Polls `done` every 20 ms for up to `limit`.
  static bool wait_until(const std::function<bool()>& done,
                         std::chrono::milliseconds limit = std::chrono::seconds(15)) {
    const auto deadline = Clock::now() + limit;
    while (!done()) {
      if (Clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }

  std::string logs() const {
    std::string all;
    for (const Runner& runner : runners_) {
      std::ifstream file(runner.log);
      std::ostringstream text;
      text << file.rdbuf();
      all += "--- " + runner.log + " (pid " + std::to_string(runner.pid) + ")\n" + text.str();
    }
    return all;
  }

  // `orrery ARGS` on the database from a home of its own, as a command on
  // another machine would be; --json.
  json cli(const Args& args, int exit_code = 0) const {
    Args full{"--db", url_};
    full.insert(full.end(), args.begin(), args.end());
    return json_of(full, exit_code);
  }

  // The claimants of the loop's runs in `status`.
  std::map<std::string, int> claimants_of(const std::string& loop, const std::string& status) {
    std::map<std::string, int> claimants;
    const std::string rows =
        sql("SELECT string_agg(claimed_by, ',') FROM runs WHERE loop_name = '" + loop +
            "' AND status = '" + status + "'");
    std::stringstream list(rows);
    for (std::string claimant; std::getline(list, claimant, ',');) ++claimants[claimant];
    return claimants;
  }

  PgTestDatabase database_;
  std::string url_;
  std::deque<Runner> runners_;  // stable references
  std::vector<int> targets_;
};

TEST_F(PostgresRunners, ThreeRunnersShareTheWorkAndEachRunsOnlyWhatItsLabelsAllow) {
  Runner& a = start_runner("a");
  Runner& b = start_runner("b", {"pool=b"});
  Runner& c = start_runner("c", {"pool=c"});
  ASSERT_TRUE(wait_until([&] {
    return polled("SELECT pid FROM daemon_lease") == std::to_string(a.pid);
  })) << logs();
  EXPECT_TRUE(wait_until([&] {
    return std::ifstream(b.log).peek() != EOF &&
           logs().find("running as a runner (labels host=") != std::string::npos;
  })) << logs();

  cli({"add", "anywhere", "--every", "1s", "--", "true"});
  cli({"add", "only-b", "--every", "1s", "--machine", "pool=b", "--", "true"});
  cli({"add", "only-c", "--every", "1s", "--machine", "pool=c", "--", "true"});
  cli({"add", "nowhere", "--every", "1s", "--machine", "pool=none", "--", "true"});
  ASSERT_TRUE(wait_until([&] {
    return count("loop_name = 'only-b' AND status = 'succeeded'") >= 3 &&
           count("loop_name = 'only-c' AND status = 'succeeded'") >= 3 &&
           count("loop_name = 'anywhere' AND status = 'succeeded'") >= 3;
  })) << logs();

  const auto only_b = claimants_of("only-b", "succeeded");
  ASSERT_FALSE(only_b.empty());
  for (const auto& [claimant, runs] : only_b) EXPECT_EQ(claimant, b.claimant()) << runs;
  const auto only_c = claimants_of("only-c", "succeeded");
  for (const auto& [claimant, runs] : only_c) EXPECT_EQ(claimant, c.claimant()) << runs;
  // Its logs are on its runner's disk, under the runner's home.
  const std::string run_of_b =
      sql("SELECT id FROM runs WHERE loop_name = 'only-b' AND status = 'succeeded' LIMIT 1");
  EXPECT_TRUE(fs::exists(b.home + "/runs/" + run_of_b)) << run_of_b;
  EXPECT_FALSE(fs::exists(a.home + "/runs/" + run_of_b)) << run_of_b;
  // `logs` from any home on this host reads it there, while b is registered.
  const RunResult logs_of_b = run({"--db", url_, "logs", run_of_b});
  EXPECT_EQ(logs_of_b.exit_code, 0) << logs_of_b.err;
  EXPECT_EQ(logs_of_b.err, "");

  // No runner has pool=none: its slot waits, visible as pending, and blocks
  // the loop's next slots (overlap skip) instead of piling up. The other
  // loops' slots are pending too for the moment between plan and claim, so
  // the list is read until it holds only the run that stays.
  EXPECT_EQ(count("loop_name = 'nowhere' AND status = 'pending'"), 1);
  json pending;
  EXPECT_TRUE(wait_until(
      [&] {
        pending = cli({"runs", "--status", "pending"});
        return pending.is_array() && pending.size() == 1u;
      },
      std::chrono::seconds(5)))
      << pending.dump();
  ASSERT_EQ(pending.size(), 1u) << pending.dump();
  EXPECT_EQ(pending[0]["loop_name"], "nowhere");
  EXPECT_EQ(pending[0]["claimed_by"], nullptr);
  EXPECT_EQ(count("loop_name = 'nowhere' AND status NOT IN ('pending', 'skipped')"), 0);
  const RunResult shown = run({"--db", url_, "run", "show", pending[0]["id"]});
  EXPECT_NE(shown.out.find("waiting  for a runner with pool=none; no registered runner has them"),
            std::string::npos)
      << shown.out;

  json status;
  EXPECT_TRUE(wait_until(
      [&] {
        status = cli({"status"});
        return status["runs"]["pending"] == 1;
      },
      std::chrono::seconds(5)))
      << status.dump();
  ASSERT_TRUE(status["runners"].is_array()) << status.dump();
  EXPECT_EQ(status["runners"].size(), 3u) << status.dump();
}

// A manual trigger follows the loop's --machine selector: it runs here when
// this host's labels (its host=, or a runner registered from it) hold the
// selector; otherwise the run is left pending for a runner that does, and
// the command says so; --here runs it on this host all the same.
TEST_F(PostgresRunners, ATriggerFollowsTheLoopsMachineSelectorUnlessToldHere) {
  const std::string where = tmp_ + "/ran-on";
  cli({"add", "gpu", "--every", "1h", "--machine", "gpu=h100", "--", "sh", "-c",
       "hostname >> " + where});
  const auto trigger = [&](const Args& extra) {
    Args args{"--db", url_, "--json", "trigger", "gpu"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  };
  // No runner has the label: left pending, said on stderr, nothing ran.
  const RunResult left = trigger({});
  EXPECT_EQ(left.exit_code, 0) << describe(with_home({"trigger", "gpu"}), left);
  const json document = json::parse(left.out, nullptr, false);
  ASSERT_TRUE(document.is_object()) << left.out;
  EXPECT_EQ(document["status"], "pending");
  const std::string pending = document["run_id"].get<std::string>();
  EXPECT_TRUE(contains(left.err, "this host (" + this_host() +
                                     ") lacks the loop's --machine labels: run " + pending +
                                     " is left pending for a runner with gpu=h100"))
      << left.err;
  EXPECT_TRUE(contains(left.err, "--here")) << left.err;
  EXPECT_EQ(cli({"run", "show", pending})["status"], "pending");
  EXPECT_FALSE(fs::exists(where));

  // A runner of another host with the label claims it, and a --wait trigger
  // waits for what that runner runs.
  start_runner("far", {"gpu=h100"}, "gpu-host");
  EXPECT_TRUE(wait_until([&] {
    return cli({"run", "show", pending})["status"] == "succeeded";
  })) << logs();
  EXPECT_EQ(cli({"run", "show", pending})["host"], "gpu-host");
  const RunResult waited = trigger({"--wait"});
  EXPECT_EQ(waited.exit_code, 0) << waited.err << logs();
  const json finished = json::parse(waited.out, nullptr, false);
  ASSERT_TRUE(finished.is_object()) << waited.out;
  EXPECT_EQ(finished["status"], "succeeded");
  EXPECT_EQ(finished["host"], "gpu-host");

  // --here: on this host, whatever its labels.
  const RunResult here = trigger({"--here", "--wait"});
  EXPECT_EQ(here.exit_code, 0) << here.err;
  EXPECT_EQ(here.err, "");
  EXPECT_EQ(json::parse(here.out, nullptr, false)["host"], this_host());

  // A runner registered from this host with the label: the trigger runs here.
  start_runner("near", {"gpu=h100"});
  const RunResult near = trigger({"--wait"});
  EXPECT_EQ(near.exit_code, 0) << near.err;
  EXPECT_EQ(near.err, "");
  const json near_run = json::parse(near.out, nullptr, false);
  EXPECT_EQ(near_run["host"], this_host());
  EXPECT_EQ(near_run["claimed_by"].get<std::string>().rfind("trigger@", 0), 0u) << near.out;
  EXPECT_EQ(testing::read_file(where),
            "gpu-host\ngpu-host\n" + this_host() + "\n" + this_host() + "\n");
}

TEST_F(PostgresRunners, ARunnerKilledMidRunHasItsRunAbandonedAndRetriedOnAnotherRunner) {
  start_runner("scheduler");
  Runner& first = start_runner("w1", {"pool=w"});
  Runner& second = start_runner("w2", {"pool=w"});
  Runner& other = lose_the_runner_of_a_hanging_run(first, second);
  ASSERT_FALSE(HasFailure());

  ASSERT_TRUE(
      wait_until([&] { return count("status = 'succeeded'") == 1; }, std::chrono::seconds(20)))
      << logs();
  EXPECT_EQ(sql("SELECT claimed_by FROM runs WHERE status = 'succeeded'"), other.claimant());
  // An abandoned attempt is re-run without using up an attempt (docs/storage.md).
  EXPECT_EQ(sql("SELECT attempt || ' ' || free_reattempts FROM runs WHERE status = 'succeeded'"),
            "1 1");
  EXPECT_EQ(count("1 = 1"), 1) << "one row for the slot";
  EXPECT_NE(logs().find("abandoned"), std::string::npos) << logs();
}

TEST_F(PostgresRunners, AKilledSchedulerIsReplacedWithinTheTtlAndLoopsRunOn) {
  Runner& scheduler = start_runner("scheduler");
  start_runner("standby");
  ASSERT_TRUE(wait_until([&] {
    return polled("SELECT pid FROM daemon_lease") == std::to_string(scheduler.pid);
  })) << logs();
  const auto killed_at = Clock::now();
  kill_now(scheduler);
  const int standby_pid = runners_.back().pid;
  ASSERT_TRUE(wait_until([&] {
    return polled("SELECT pid FROM daemon_lease") == std::to_string(standby_pid);
  })) << logs();
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - killed_at);
  EXPECT_LE(took.count(), kTtlSeconds * 1000 + 1000) << logs();
  RecordProperty("takeover_ms", std::to_string(took.count()));
  // Logged just after the takeover commits.
  EXPECT_TRUE(wait_until([&] { return logs().find("taken over") != std::string::npos; })) << logs();

  cli({"add", "after", "--every", "1s", "--", "true"});
  EXPECT_TRUE(wait_until([&] { return count("status = 'succeeded'") >= 2; })) << logs();
}

// A run of another host is stopped by its own runner: `replace` asks it
// through the database, and that runner, notified, signals its supervisor.
TEST_F(PostgresRunners, ARunOfAnotherHostIsReplacedByItsOwnRunnerOnRequest) {
  start_runner("scheduler");
  Runner& far = start_runner("far", {"pool=far"}, "runner-far");
  cli({"add", "long", "--every", "2s", "--overlap", "replace", "--machine", "pool=far", "--",
       "sleep", "600"});
  ASSERT_TRUE(wait_until([&] { return count("status = 'running' AND pid IS NOT NULL") == 1; }))
      << logs();
  const std::string first = polled("SELECT id FROM runs WHERE status = 'running'");
  EXPECT_EQ(polled("SELECT host FROM runs WHERE id = '" + first + "'"), "runner-far");
  EXPECT_EQ(polled("SELECT claimed_by FROM runs WHERE id = '" + first + "'"), far.claimant());
  ASSERT_TRUE(wait_until([&] {
    return polled("SELECT status FROM runs WHERE id = '" + first + "'") == "cancelled";
  })) << logs();
  EXPECT_NE(logs().find("run " + first + " of loop long cancelled on request"), std::string::npos)
      << logs();
  EXPECT_NE(logs().find("asked its runner on runner-far to cancel it"), std::string::npos)
      << logs();
  // Its replacement runs on the far runner.
  EXPECT_TRUE(wait_until([&] {
    return count("id <> '" + first + "' AND status = 'running' AND host = 'runner-far'") == 1;
  })) << logs();
}

// A runner on another host that is lost mid-run (daemon, supervisor and
// target killed): its pids mean nothing here, so the run is abandoned only
// once its lease ran out, then retried on another runner.
TEST_F(PostgresRunners, ARunOfALostHostIsAbandonedByItsLeaseAloneAndRetriedElsewhere) {
  start_runner("scheduler");
  Runner& first = start_runner("w1", {"pool=w"}, "runner-one");
  Runner& second = start_runner("w2", {"pool=w"}, "runner-two");
  Runner& other = lose_the_runner_of_a_hanging_run(first, second);
  ASSERT_FALSE(HasFailure());
  const auto lost_at = Clock::now();
  ASSERT_TRUE(
      wait_until([&] { return count("status = 'succeeded'") == 1; }, std::chrono::seconds(20)))
      << logs();
  const auto retried_after =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - lost_at).count();
  RecordProperty("retried_after_ms", std::to_string(retried_after));
  EXPECT_EQ(polled("SELECT claimed_by FROM runs WHERE status = 'succeeded'"), other.claimant());
  EXPECT_EQ(polled("SELECT host FROM runs WHERE status = 'succeeded'"), other.host);
  EXPECT_NE(logs().find("abandoned (run lease expired before completion)"), std::string::npos)
      << logs();
  EXPECT_EQ(logs().find("died before the run finished"), std::string::npos)
      << "another host's supervisor was probed\n"
      << logs();
}

// Two runners on two hosts share --every 1s loops; the one holding runs is
// lost (kill -9 of the daemon, its supervisors and their targets). Within
// the run lease plus the lease ttl plus 5 s every loop has completed a slot
// on the survivor: an abandoned run's free re-attempt starts at once and no
// retry holds its loop past the next slot (docs/scheduling.md, "Retries").
TEST_F(PostgresRunners, ALostRunnersLoopsEachCompleteASlotOnTheSurvivorWithinTheLeasePlus5s) {
  constexpr int kLoops = 6;
  constexpr int kRunLeaseSeconds = 3;
  Runner& first = start_runner("one", {}, "host-one");
  Runner& second = start_runner("two", {}, "host-two");
  for (int i = 0; i < kLoops; ++i) {
    cli({"add", testing::numbered("each-second-", i), "--every", "1s", "--max-attempts", "1",
         "--lease", std::to_string(kRunLeaseSeconds) + "s", "--", "sleep", "0.7"});
  }
  // Both runners are running something: lose the first's host.
  ASSERT_TRUE(wait_until([&] {
    return count("status = 'running' AND claimed_by = '" + first.claimant() + "'") > 0 &&
           count("status = 'running' AND claimed_by = '" + second.claimant() + "'") > 0;
  })) << logs();
  std::stringstream left(
      polled("SELECT string_agg(COALESCE(supervisor_pid, 0) || ' ' || COALESCE(pgid, 0), ' ') "
             "FROM runs WHERE status = 'running' AND claimed_by = '" +
             first.claimant() + "'"));
  kill_now(first);
  for (int supervisor = 0, group = 0; left >> supervisor >> group;) {
    if (supervisor > 1) ::kill(supervisor, SIGKILL);
    if (group > 1) {
      targets_.push_back(group);
      ::kill(-group, SIGKILL);
    }
  }
  const std::string lost_at = sql("SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint");
  const auto deadline =
      std::chrono::seconds(std::max(kRunLeaseSeconds, kTtlSeconds) + kTtlSeconds + 5);
  const auto began = Clock::now();
  const std::string done_after = "status = 'succeeded' AND claimed_by = '" + second.claimant() +
                                 "' AND finished_at > " + lost_at;
  EXPECT_TRUE(wait_until(
      [&] {
        return int_or_zero(polled("SELECT count(DISTINCT loop_id) FROM runs WHERE " +
                                  done_after)) == kLoops;
      },
      deadline))
      << polled(
             "SELECT string_agg(loop_name || ' ' || status || ' ' || COALESCE(skip_reason, ''), "
             "E'\n' ORDER BY loop_name, scheduled_for) FROM runs")
      << logs();
  RecordProperty(
      "all_completed_after_ms",
      std::to_string(
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began).count()));
}

}  // namespace
}  // namespace orrery

namespace orrery {
namespace {

// The admission queue on a shared database (docs/admission.md): three
// daemons, one of which admits; limits hold across them while the admitting
// one is killed and replaced; one key enqueued at once from twenty commands
// is one item.
TEST_F(PostgresRunners, ThreeRunnersKeepEveryAdmissionLimitThroughATakeoverAndEnqueueOneKeyOnce) {
  Runner& scheduler = start_runner("a");
  start_runner("b");
  start_runner("c");
  ASSERT_TRUE(wait_until([&] {
    return polled("SELECT pid FROM daemon_lease") == std::to_string(scheduler.pid);
  })) << logs();
  const std::string spec = tmp_ + "/work.yaml";
  std::ofstream(spec) << "name: work\nsteps:\n  - id: s\n    target: {type: command, shell: "
                         "true, command: 'sleep 0.2'}\n";
  cli({"workflow", "create", spec});
  cli({"route", "add", "r", "--workflow", "work", "--max-running", "3", "--max-per-project", "1"});

  std::vector<std::thread> threads;
  std::vector<RunResult> results(20);
  for (int i = 0; i < 20; ++i) {
    threads.emplace_back([&, i] {
      results[i] = run_orrery({"--home", tmp_ + "/cli-" + std::to_string(i), "--db", url_, "--json",
                               "enqueue", "r", "--key", "same", "--project", "web"});
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::map<std::string, int> outcomes;
  for (const RunResult& result : results) {
    ASSERT_EQ(result.exit_code, 0) << result.err;
    ++outcomes[json::parse(result.out)["outcome"].get<std::string>()];
  }
  EXPECT_EQ(outcomes["created"], 1);
  EXPECT_EQ(outcomes["created"] + outcomes["refreshed"] + outcomes["duplicate"], 20);

  const std::vector<std::string> projects{"web", "api", "cli", "docs"};
  std::string batch;
  for (int i = 0; i < 30; ++i) {
    const std::string& project = projects[i % 4];
    batch += json{{"key", project + "-" + std::to_string(i)}, {"project", project}}.dump() + "\n";
  }
  const std::string batch_file = tmp_ + "/batch.jsonl";
  std::ofstream(batch_file) << batch;
  cli({"enqueue", "r", "--from-json", batch_file});

  const auto holding = [&] {
    return int_or_zero(
        polled("SELECT count(*) FROM work_items WHERE status IN ('admitted', 'running')"));
  };
  const auto most_of_one_project = [&] {
    return int_or_zero(
        polled("SELECT COALESCE(max(n), 0) FROM (SELECT count(*) AS n FROM work_items "
               "WHERE status IN ('admitted', 'running') GROUP BY project) AS p"));
  };
  const auto succeeded = [&] {
    return int_or_zero(polled("SELECT count(*) FROM work_items WHERE status = 'succeeded'"));
  };
  int most = 0;
  bool killed = false;
  ASSERT_TRUE(wait_until(
      [&] {
        most = std::max(most, holding());
        EXPECT_LE(holding(), 3) << logs();
        EXPECT_LE(most_of_one_project(), 1) << logs();
        if (!killed && succeeded() >= 8) {
          kill_now(scheduler);  // the admitting daemon, mid-queue
          killed = true;
        }
        return succeeded() == 31;
      },
      std::chrono::seconds(90)))
      << logs();
  EXPECT_TRUE(killed);
  EXPECT_GE(most, 1);
  EXPECT_NE(polled("SELECT pid FROM daemon_lease"), std::to_string(scheduler.pid));
  // No item lost, none run twice, no attempt spent on the takeover.
  EXPECT_EQ(polled("SELECT count(*) FROM workflow_runs"), "31");
  EXPECT_EQ(polled("SELECT max(attempts) FROM work_items"), "1");
}

}  // namespace
}  // namespace orrery
