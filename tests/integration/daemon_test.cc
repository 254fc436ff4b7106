// Black-box tests of `orrery daemon` (docs/daemon.md): the lease, signals,
// the wake-up socket, options, a loop running on its schedule and
// `daemon --once` catch-up. The larger acceptance scenarios live in
// daemon_acceptance_test.cc.
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "home_fixture.h"
#include "support/numbered.h"

namespace orrery {
namespace {

using testing::numbered;

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string read_file(const std::string& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// `orrery daemon` in the background, its stderr in a file.
class DaemonProcess {
 public:
  DaemonProcess(const std::vector<std::string>& args, const std::string& log_path,
                const EnvVars& env = {})
      : log_path_(log_path) {
    std::vector<std::string> full{ORRERY_BINARY};
    full.insert(full.end(), args.begin(), args.end());
    pid_ = fork();
    if (pid_ == 0) {
      for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
      const int null = open("/dev/null", O_RDWR);
      const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(null, STDIN_FILENO);
      dup2(null, STDOUT_FILENO);
      dup2(log, STDERR_FILENO);
      std::vector<char*> argv;
      for (std::string& arg : full) argv.push_back(arg.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
  }
  ~DaemonProcess() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  pid_t pid() const { return pid_; }
  std::string log() const { return read_file(log_path_); }

  // Waits until the log holds `text`.
  bool wait_for_log(const std::string& text, std::chrono::milliseconds limit) const {
    const auto give_up = Clock::now() + limit;
    while (Clock::now() < give_up) {
      if (log().find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  // Sends `signal` and waits for the exit; the exit status, or -1.
  int stop(int signal, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    kill(pid_, signal);
    const auto give_up = Clock::now() + limit;
    int status = 0;
    while (Clock::now() < give_up) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }

 private:
  std::string log_path_;
  pid_t pid_ = -1;
  bool exited_ = false;
};

class DaemonCli : public HomeFixture {
 protected:
  // A daemon in the background, once it is ready (unless its log goes to a file).
  std::unique_ptr<DaemonProcess> start_daemon(const Args& extra = {}) {
    Args args = with_home({"daemon", "--lease-ttl", "3s"});
    args.insert(args.end(), extra.begin(), extra.end());
    auto daemon = std::make_unique<DaemonProcess>(
        args, tmp_ + "/daemon-" + std::to_string(++daemons_) + ".log");
    const bool to_stderr = std::find(extra.begin(), extra.end(), "--log") == extra.end();
    if (to_stderr) {
      EXPECT_TRUE(daemon->wait_for_log("ready: ", std::chrono::seconds(10))) << daemon->log();
    }
    return daemon;
  }

  json ok_json(const Args& args) {
    Args full{"--json"};  // before the command: a target's arguments follow --
    full.insert(full.end(), args.begin(), args.end());
    const RunResult result = run(full);
    EXPECT_EQ(result.exit_code, 0) << describe(with_home(full), result);
    return json::parse(result.out.empty() ? "null" : result.out);
  }

  json runs_of(const std::string& loop) { return ok_json({"runs", loop, "--limit", "1000"}); }

  // Moves a loop's next slot into the past, as if no daemon had run then.
  void set_next_run_at(const std::string& loop_id, std::int64_t at) {
    execute_sql("UPDATE loops SET next_run_at = " + std::to_string(at) + " WHERE id = '" + loop_id +
                "'");
  }

  // Changes the database under the binary (what another daemon would do).
  void execute_sql(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2((home_ + "/orrery.db").c_str(), &db, SQLITE_OPEN_READWRITE, nullptr),
              SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
        << (error ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
  }

  std::string add_loop(const Args& options) {
    Args args{"add"};
    args.insert(args.end(), options.begin(), options.end());
    return ok_json(args)["id"].get<std::string>();
  }

  int daemons_ = 0;
};

// ---------------------------------------------------------------------------
// Options.

TEST_F(DaemonCli, BadOptionsExit2AndCreateNothing) {
  const std::vector<Args> bad{{"daemon", "--lease-ttl", "0"},
                              {"daemon", "--lease-ttl", "1s"},
                              {"daemon", "--lease-ttl", "2999ms"},
                              {"daemon", "--lease-ttl", "2h"},
                              {"daemon", "--lease-ttl", "soon"},
                              {"daemon", "--lease-ttl", "-5s"},
                              {"daemon", "--max-running", "0"},
                              {"daemon", "--max-running", "10001"},
                              {"daemon", "--max-running", "-1"},
                              {"daemon", "--max-running", "many"},
                              {"daemon", "--once", "--max-running", "0"},
                              {"daemon", "--log", tmp_ + "/missing/daemon.log"},
                              {"daemon", "--bogus"}};
  for (const Args& args : bad) {
    const std::string message = expect_error(args, 2);
    EXPECT_EQ(message.find("CLI"), std::string::npos) << message;
    EXPECT_FALSE(std::filesystem::exists(home_)) << describe(with_home(args), run(args));
  }
  EXPECT_NE(expect_error({"daemon", "--lease-ttl", "1s"}, 2).find("--lease-ttl 1s"),
            std::string::npos);
  EXPECT_NE(expect_error({"daemon", "--max-running", "0"}, 2).find("--max-running 0"),
            std::string::npos);
}

// Each bad --label is exit 2 with its own sentence, before anything is created.
TEST_F(DaemonCli, BadLabelsExit2WithTheirSentenceAndCreateNothing) {
  const std::pair<Args, std::string> cases[] = {
      {{"--label", "os"}, "--label 'os': expected LABEL=VALUE"},
      {{"--label", "=linux"}, "--label '=linux': expected LABEL=VALUE"},
      {{"--label", "os="}, "--label 'os=': the value is empty; expected LABEL=VALUE"},
      {{"--label", "o s=x"}, "may contain only ASCII letters, digits, '.', '_' and '-'"},
      {{"--label", "os=a,b"}, "a value cannot contain a space, a ',' or a control character"},
      {{"--label", "os=\xff"}, "--label 'os=\\xff' is not valid UTF-8"},
      {{"--label", std::string(64, 'k') + "=v"}, "the label is 64 bytes long; at most 63"},
      {{"--label", "os=linux", "--label", "os=mac"}, "--label gives the label os two values"},
      {{"--label", "host=not-this-machine.invalid"},
       "--label host=not-this-machine.invalid differs from this machine's host name"},
  };
  for (const auto& [labels, sentence] : cases) {
    Args args{"daemon", "--once"};
    args.insert(args.end(), labels.begin(), labels.end());
    const std::string message = expect_error(args, 2);
    EXPECT_NE(message.find(sentence), std::string::npos) << message;
    EXPECT_FALSE(std::filesystem::exists(home_)) << message;
  }
  std::vector<std::string> too_many{"daemon", "--once"};
  for (int i = 0; i < 32; ++i)
    too_many.insert(too_many.end(), {"--label", numbered("k", i) + "=v"});
  EXPECT_NE(expect_error(too_many, 2).find("a runner has at most 32 labels, host= included"),
            std::string::npos);
}

TEST_F(DaemonCli, GoodLabelsAreAccepted) {
  const Args args{"daemon",  "--once",         "--label", "os=linux",
                  "--label", "gpu.model=a100", "--label", "os=linux"};
  const RunResult result = run(args);
  EXPECT_EQ(result.exit_code, 0) << describe(with_home(args), result);
  EXPECT_EQ(result.out, "no runs were due\n");
}

TEST_F(DaemonCli, HelpListsEveryOption) {
  const RunResult result = run({"daemon", "--help"});
  ASSERT_EQ(result.exit_code, 0);
  for (const char* option : {"--once", "--lease-ttl", "--max-running", "--log", "--label"}) {
    EXPECT_NE(result.out.find(option), std::string::npos) << option;
  }
}

// ---------------------------------------------------------------------------
// The lease, signals and the wake-up socket.

TEST_F(DaemonCli, ASecondDaemonExits4NamingTheHolder) {
  auto first = start_daemon();
  for (const Args& second : {Args{"daemon"}, Args{"daemon", "--once"}}) {
    const std::string message = expect_error(second, 4);
    EXPECT_NE(message.find("another daemon holds the lease: pid " + std::to_string(first->pid()) +
                           " on "),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(" since "), std::string::npos) << message;
  }
  EXPECT_EQ(first->stop(SIGTERM), 0) << first->log();
}

TEST_F(DaemonCli, SigtermAndSigintExit0AndReleaseTheLease) {
  for (int signal : {SIGTERM, SIGINT}) {
    auto daemon = start_daemon();
    EXPECT_EQ(daemon->stop(signal), 0) << daemon->log();
    EXPECT_NE(daemon->log().find("lease released"), std::string::npos) << daemon->log();
    EXPECT_FALSE(std::filesystem::exists(home_ + "/daemon.sock"));
  }
  // Released, not left to expire: the next daemon takes it at once.
  auto next = start_daemon();
  EXPECT_EQ(next->stop(SIGTERM), 0) << next->log();
}

TEST_F(DaemonCli, ListensOnAPrivateWakeUpSocketWhileRunning) {
  auto daemon = start_daemon();
  struct stat info {};
  ASSERT_EQ(stat((home_ + "/daemon.sock").c_str(), &info), 0);
  EXPECT_TRUE(S_ISSOCK(info.st_mode));
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_EQ(daemon->stop(SIGTERM), 0);
}

TEST_F(DaemonCli, SighupReopensTheLogFile) {
  const std::string path = tmp_ + "/file.log";
  auto daemon = start_daemon({"--log", path});
  const auto give_up = Clock::now() + std::chrono::seconds(5);
  while (read_file(path).find("ready: ") == std::string::npos && Clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_NE(read_file(path).find("ready: "), std::string::npos) << daemon->log();
  std::filesystem::rename(path, path + ".1");
  kill(daemon->pid(), SIGHUP);
  const auto reopened = Clock::now() + std::chrono::seconds(5);
  while (read_file(path).find("log reopened") == std::string::npos && Clock::now() < reopened) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_NE(read_file(path).find("log reopened"), std::string::npos);
  EXPECT_EQ(daemon->stop(SIGTERM), 0);
  EXPECT_NE(read_file(path).find("lease released"), std::string::npos);
  // Every line starts with its instant.
  for (const std::string& line : lines(read_file(path + ".1") + read_file(path))) {
    EXPECT_TRUE(is_time_text(line.substr(0, 24))) << line;
  }
}

// A FIFO as the log never blocks the daemon: without a reader it is refused
// at start (exit 2, nothing created) and at a SIGHUP (the old log stays);
// with one, lines arrive.
TEST_F(DaemonCli, ALogFifoWithoutAReaderIsRefusedAndNeverBlocksTheDaemon) {
  const std::string fifo = tmp_ + "/log.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const Args& extra : {Args{"--log", fifo}, Args{"--once", "--log", fifo}}) {
    auto refused = start_daemon(extra);
    EXPECT_EQ(refused->stop(0, std::chrono::seconds(5)), 2) << refused->log();
    EXPECT_NE(refused->log().find("--log " + fifo + ": "), std::string::npos) << refused->log();
    EXPECT_NE(refused->log().find("no process reads"), std::string::npos) << refused->log();
    EXPECT_FALSE(std::filesystem::exists(home_));
  }

  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  auto daemon = start_daemon({"--log", fifo});
  std::string read_back;
  const auto give_up = Clock::now() + std::chrono::seconds(10);
  while (read_back.find("ready: ") == std::string::npos && Clock::now() < give_up) {
    char buffer[4096];
    const ssize_t got = read(reader, buffer, sizeof buffer);
    if (got > 0) read_back.append(buffer, size_t(got));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_NE(read_back.find("ready: "), std::string::npos) << daemon->log();
  close(reader);
  // The reader went away: reopening finds no reader and keeps the old log
  // (SIGHUP is read before SIGTERM, the lower number first).
  kill(daemon->pid(), SIGHUP);
  EXPECT_EQ(daemon->stop(SIGTERM, std::chrono::seconds(5)), 0) << daemon->log();
}

TEST_F(DaemonCli, ALostLeaseStopsTheDaemonWithExit4AndLeavesItsRunsRunning) {
  const std::string loop = add_loop({"slow", "--every", "1s", "--", "sleep", "1"});
  auto daemon = start_daemon();
  ASSERT_TRUE(daemon->wait_for_log(" started (slot ", std::chrono::seconds(10))) << daemon->log();
  // Another daemon took the lease over (a new generation).
  execute_sql("UPDATE daemon_lease SET lease_id = 'L99-other', generation = 99");
  EXPECT_EQ(daemon->stop(0, std::chrono::seconds(10)), 4) << daemon->log();
  EXPECT_NE(daemon->log().find("daemon lease lost"), std::string::npos) << daemon->log();
  EXPECT_NE(daemon->log().find("runs continue under their supervisors"), std::string::npos);
  // The run it started finishes under its supervisor and is recorded.
  const auto give_up = Clock::now() + std::chrono::seconds(10);
  bool finished = false;
  while (!finished && Clock::now() < give_up) {
    const json runs = runs_of(loop);
    finished = !runs.empty() && runs.back()["status"] == "succeeded";
    if (!finished) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(finished) << runs_of(loop).dump(2);
}

TEST_F(DaemonCli, TellsSystemdReadyWatchdogAndStopping) {
  // A datagram socket standing in for systemd's $NOTIFY_SOCKET.
  const std::string address = tmp_ + "/notify";
  const int systemd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_un bound{};
  bound.sun_family = AF_UNIX;
  std::snprintf(bound.sun_path, sizeof bound.sun_path, "%s", address.c_str());
  ASSERT_EQ(bind(systemd, reinterpret_cast<sockaddr*>(&bound), sizeof bound), 0);
  timeval timeout{5, 0};
  setsockopt(systemd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  const auto receive = [systemd] {
    char buffer[512];
    const ssize_t got = recv(systemd, buffer, sizeof buffer, 0);
    return got > 0 ? std::string(buffer, size_t(got)) : std::string();
  };
  DaemonProcess daemon(with_home({"daemon", "--lease-ttl", "3s"}), tmp_ + "/daemon.log",
                       {{"NOTIFY_SOCKET", address}, {"WATCHDOG_USEC", "200000"}});
  EXPECT_EQ(receive().rfind("READY=1", 0), 0u) << daemon.log();
  for (int ping = 0; ping < 3; ++ping) EXPECT_EQ(receive(), "WATCHDOG=1") << ping;
  EXPECT_EQ(daemon.stop(SIGTERM), 0) << daemon.log();
  std::string last;
  for (std::string message = receive(); !message.empty(); message = receive()) {
    last = message;
    if (last == "STOPPING=1") break;
  }
  EXPECT_EQ(last, "STOPPING=1");
  close(systemd);
}

// ---------------------------------------------------------------------------
// Running loops.

TEST_F(DaemonCli, OnceWithNothingDueRunsNothing) {
  const RunResult human = run({"daemon", "--once"});
  EXPECT_EQ(human.exit_code, 0) << describe(with_home({"daemon", "--once"}), human);
  EXPECT_EQ(human.out, "no runs were due\n");
  EXPECT_EQ(ok_json({"daemon", "--once"}), json::parse(R"({"runs": []})"));
}

TEST_F(DaemonCli, AnEverySecondLoopRunsOncePerSlot) {
  const std::int64_t added = now_ms();
  const std::string loop = add_loop({"tick", "--every", "1s", "--", "true"});
  auto daemon = start_daemon();
  std::this_thread::sleep_for(std::chrono::milliseconds(3600));
  EXPECT_EQ(daemon->stop(SIGTERM), 0) << daemon->log();
  const std::int64_t slots_due = (now_ms() - added) / 1000;  // at most this many fell due
  const json runs = runs_of(loop);
  std::set<std::string> slots;
  int succeeded = 0;
  for (const json& run : runs) {
    slots.insert(run["scheduled_for"].get<std::string>());
    succeeded += run["status"] == "succeeded";
  }
  EXPECT_EQ(slots.size(), runs.size()) << runs.dump(2);  // each slot once
  EXPECT_GE(succeeded, 2) << runs.dump(2) << daemon->log();
  EXPECT_LE(std::int64_t(runs.size()), slots_due) << runs.dump(2);
  EXPECT_NE(daemon->log().find(" started (slot "), std::string::npos) << daemon->log();
}

// Five slots fell due before `daemon --once` started.
class DaemonCatchUp : public DaemonCli {
 protected:
  std::string missed_loop(const std::string& policy) {
    const std::string loop =
        add_loop({"behind", "--every", "1s", "--catch-up", policy, "--", "true"});
    set_next_run_at(loop, now_ms() - 4'100);  // the sixth slot is 900 ms ahead
    return loop;
  }
};

TEST_F(DaemonCatchUp, AllRunsEveryMissedSlotOldestFirst) {
  const std::string loop = missed_loop("all");
  const json once = ok_json({"daemon", "--once"});
  ASSERT_EQ(once["runs"].size(), 5u) << once.dump(2);
  std::string previous;
  for (const json& run : once["runs"]) {
    EXPECT_EQ(run["status"], "succeeded") << run.dump(2);
    EXPECT_GT(run["scheduled_for"].get<std::string>(), previous);
    previous = run["scheduled_for"].get<std::string>();
  }
}

TEST_F(DaemonCatchUp, LatestRunsTheNewestAndSkipsTheRest) {
  const std::string loop = missed_loop("latest");
  const json once = ok_json({"daemon", "--once"});
  ASSERT_EQ(once["runs"].size(), 1u) << once.dump(2);
  const json runs = runs_of(loop);
  int skipped = 0;
  for (const json& run : runs) {
    if (run["status"] == "skipped") {
      ++skipped;
      EXPECT_EQ(run["skip_reason"], "missed");
      EXPECT_LT(run["scheduled_for"].get<std::string>(),
                once["runs"][0]["scheduled_for"].get<std::string>());
    }
  }
  EXPECT_EQ(skipped, 4) << runs.dump(2);
}

TEST_F(DaemonCatchUp, NoneRunsNothingAndRecordsEverySlotMissed) {
  const std::string loop = missed_loop("none");
  const RunResult result = run({"daemon", "--once"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out, "no runs were due\n");
  const json runs = runs_of(loop);
  ASSERT_EQ(runs.size(), 5u) << runs.dump(2);
  for (const json& run : runs) {
    EXPECT_EQ(run["status"], "skipped");
    EXPECT_EQ(run["skip_reason"], "missed");
  }
}

TEST_F(DaemonCli, OnceExits1WhenARunFailed) {
  const std::string loop = add_loop({"failing", "--every", "1s", "--", "false"});
  set_next_run_at(loop, now_ms() - 100);
  const RunResult result = run({"daemon", "--once", "--json"});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  const json once = json::parse(result.out);
  ASSERT_EQ(once["runs"].size(), 1u);
  EXPECT_EQ(once["runs"][0]["status"], "failed");
  EXPECT_EQ(once["runs"][0]["exit_code"], 1);
}

}  // namespace
}  // namespace orrery
