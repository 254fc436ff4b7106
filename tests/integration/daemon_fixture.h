// A fixture for black-box scenarios of `orrery daemon` in real time
// (docs/daemon.md, docs/scheduling.md): a HomeFixture that starts daemons in
// the background, reads loops and runs as JSON, moves a loop's next slot into
// the past (as if no daemon had run for a while), and stops every process a
// test started or saw when the test ends.
//
// Synchronisation is by polling a state with a deadline (`eventually`) or by
// waiting for a process to exit; a test sleeps only to let wall-clock slots
// pass.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "home_fixture.h"
#include "run_binary.h"
#include "support/process_group.h"
#include "support/test_files.h"

extern char** environ;

namespace orrery {

using nlohmann::json;
using std::chrono::milliseconds;
using TimeMs = std::int64_t;

inline TimeMs now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// A time as orrery prints it: YYYY-MM-DDTHH:MM:SS.mmmZ.
inline std::string iso_time(TimeMs ms) {
  const std::time_t seconds = ms / 1000;
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[80];  // room for any int in every field, so nothing is ever cut
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900,
                parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec,
                int(ms % 1000));
  return text;
}

// Sleeps until the wall clock reads `when` (time passing is the event).
inline void sleep_until_ms(TimeMs when) {
  const TimeMs left = when - now_ms();
  if (left > 0) std::this_thread::sleep_for(milliseconds(left));
}

// Polls until `done` holds or the deadline passes.
inline bool eventually(const std::function<bool()>& done, milliseconds limit = milliseconds(10'000),
                       milliseconds period = milliseconds(25)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(period);
  }
  return true;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Milliseconds of a JSON time field (orrery's format).
inline TimeMs ms_of(const json& value) { return time_ms(value.get<std::string>()); }

// Voluntary plus involuntary context switches of every thread of a process.
inline std::int64_t context_switches(pid_t pid) {
  std::int64_t total = 0;
  std::error_code error;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  for (auto it = std::filesystem::directory_iterator(tasks, error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
    for (const std::string& line : lines(testing::read_file(it->path() / "status"))) {
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0 ||
          line.rfind("nonvoluntary_ctxt_switches:", 0) == 0) {
        total += std::stoll(line.substr(line.find(':') + 1));
      }
    }
  }
  return total;
}

// User plus system CPU time of a process, in clock ticks.
inline std::int64_t cpu_ticks(pid_t pid) {
  const std::string stat = testing::read_file("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::vector<std::string> fields;
  size_t start = close + 2;
  while (start < stat.size()) {
    size_t end = stat.find(' ', start);
    if (end == std::string::npos) end = stat.size();
    fields.push_back(stat.substr(start, end - start));
    start = end + 1;
  }
  // Fields after the name start at "state" (field 3); utime and stime are 14 and 15.
  return std::stoll(fields.at(11)) + std::stoll(fields.at(12));
}

class DaemonFixture : public HomeFixture {
 protected:
  void TearDown() override {
    for (const Daemon& daemon : daemons_) {
      if (daemon.reaped) continue;
      ::kill(daemon.pid, SIGKILL);
      ::waitpid(daemon.pid, nullptr, 0);
    }
    stop_everything_the_runs_started();
    HomeFixture::TearDown();
  }

  struct Daemon {
    pid_t pid = -1;
    std::string log;  // its stdout and stderr
    bool reaped = false;
    int exit_code = -1;
  };

  // Starts `orrery --home H daemon EXTRA…` in the background, its output
  // going to a log file. Returns its index for the other daemon helpers.
  size_t start_daemon(const Args& extra = {}, const EnvVars& env = {}) {
    Daemon daemon;
    daemon.log = tmp_ + "/daemon-" + std::to_string(daemons_.size()) + ".log";
    Args args = with_home({"daemon"});
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<std::string> argv_strings{ORRERY_BINARY};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<std::string> env_strings;
    for (char** entry = environ; *entry != nullptr; ++entry) {
      const std::string text(*entry);
      bool replaced = false;
      for (const auto& [key, value] : env) replaced = replaced || text.rfind(key + "=", 0) == 0;
      if (!replaced) env_strings.push_back(text);
    }
    for (const auto& [key, value] : env) env_strings.push_back(key + "=" + value);
    std::vector<char*> argv, envp;
    for (std::string& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    for (std::string& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, daemon.log.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    const int spawned =
        posix_spawn(&daemon.pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(spawned, 0) << "cannot start the daemon";
    daemons_.push_back(daemon);
    return daemons_.size() - 1;
  }

  pid_t pid_of(size_t daemon) const { return daemons_.at(daemon).pid; }
  std::string log_of(size_t daemon) const { return testing::read_file(daemons_.at(daemon).log); }

  // Whether the daemon has exited (reaping it); its exit code is then kept.
  bool exited(size_t index) {
    Daemon& daemon = daemons_.at(index);
    if (daemon.reaped) return true;
    int status = 0;
    if (::waitpid(daemon.pid, &status, WNOHANG) != daemon.pid) return false;
    daemon.reaped = true;
    daemon.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return true;
  }

  // Waits (bounded) for the daemon to exit; its exit code (128 + signal when
  // a signal ended it), or -1 if it is still running at the deadline.
  int wait_daemon_exit(size_t index, milliseconds limit = milliseconds(10'000)) {
    if (!eventually([&] { return exited(index); }, limit, milliseconds(10))) return -1;
    return daemons_.at(index).exit_code;
  }

  // Sends `signal` and waits for the exit; the exit code as above.
  int stop_daemon(size_t index, int signal = SIGTERM) {
    EXPECT_EQ(::kill(pid_of(index), signal), 0);
    return wait_daemon_exit(index);
  }

  // `status --json`.
  json status() const { return json_of({"status"}); }

  // Waits until the daemon holds the lease (per `status`).
  bool wait_until_held(size_t index) {
    return eventually(
        [&] {
          if (exited(index)) return false;
          const json state = status();
          if (!state.is_object() || !state.contains("daemon")) return false;
          const json& daemon = state["daemon"];
          return daemon.is_object() && daemon.value("held", false) && daemon.contains("pid") &&
                 daemon.at("pid") == pid_of(index);
        },
        milliseconds(10'000), milliseconds(20));
  }

  // Starts a daemon and waits until it holds the lease.
  size_t start_held_daemon(const Args& extra = {}, const EnvVars& env = {}) {
    const size_t index = start_daemon(extra, env);
    EXPECT_TRUE(wait_until_held(index)) << log_of(index);
    return index;
  }

  json json_of(const Args& args, int exit_code = 0) const {
    Args full{"--json"};
    full.insert(full.end(), args.begin(), args.end());
    const RunResult result = run(full);
    EXPECT_EQ(result.exit_code, exit_code) << describe(with_home(full), result);
    return json::parse(result.out, nullptr, false);
  }

  // `add NAME ARGS…`; the loop document.
  json add(const std::string& name, const Args& schedule_options_target) const {
    Args args{"add", name};
    args.insert(args.end(), schedule_options_target.begin(), schedule_options_target.end());
    return json_of(args);
  }

  json loop(const std::string& name) const { return json_of({"show", name}); }

  // Every run of the loop (or of every loop), oldest slot first.
  json runs(const std::string& loop = "") const {
    Args args{"runs"};
    if (!loop.empty()) args.push_back(loop);
    json all = json::array();
    for (int offset = 0;; offset += 1000) {
      Args page = args;
      for (const std::string& option :
           {std::string("--limit"), std::string("1000"), std::string("--offset")}) {
        page.push_back(option);
      }
      page.push_back(std::to_string(offset));
      const json got = json_of(page);
      if (!got.is_array()) break;
      for (const json& run : got) all.push_back(run);
      if (got.size() < 1000) break;
    }
    std::vector<json> sorted(all.begin(), all.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](const json& a, const json& b) {
      return a["scheduled_for"].get<std::string>() < b["scheduled_for"].get<std::string>();
    });
    return json(sorted);
  }

  static bool in_flight(const json& run) {
    return run["status"] == "running" || run["status"] == "queued";
  }

  // Waits until no run of the loop (of any loop) is running or queued.
  bool wait_until_settled(const std::string& loop = "",
                          milliseconds limit = milliseconds(10'000)) const {
    return eventually(
        [&] {
          for (const json& run : runs(loop)) {
            if (in_flight(run)) return false;
          }
          return true;
        },
        limit, milliseconds(50));
  }

  // The loop's next slot moved to `when`, as if no daemon had run since
  // then (the loop was created long ago and its slots fell due unwatched).
  void move_next_slot(const std::string& loop_id, TimeMs when) const {
    sql("UPDATE loops SET next_run_at = " + std::to_string(when) + " WHERE id = '" + loop_id + "'");
  }

  // `copies` more loops like `loop_id` (new ids, names PREFIX-N), written
  // straight into the database: many `add` processes would be slow.
  void copy_loop(const std::string& loop_id, int copies, const std::string& prefix) const {
    std::string text =
        "BEGIN; CREATE TEMP TABLE copy AS SELECT * FROM loops WHERE id = '" + loop_id + "';";
    for (int i = 1; i <= copies; ++i) {
      char id[40];
      std::snprintf(id, sizeof id, "%s%08x", loop_id.substr(0, 24).c_str(), 0x7f000000u + i);
      text += "UPDATE copy SET id = '" + std::string(id) + "', name = '" + prefix + "-" +
              std::to_string(i) + "'; INSERT INTO loops SELECT * FROM copy;";
    }
    sql(text + "DROP TABLE copy; COMMIT;");
  }

  // The slots of the loop strictly after `from` (at most n), per `next`.
  std::vector<TimeMs> next_slots(const std::string& loop, TimeMs from, int n) const {
    const json next = json_of({"next", loop, "--from", iso_time(from), "-n", std::to_string(n)});
    std::vector<TimeMs> slots;
    for (const json& time : next["next"]) slots.push_back(ms_of(time));
    return slots;
  }

  // A shell command that appends "SLOT ATTEMPT START_MS" to `file`.
  static std::string record_to(const std::string& file) {
    return "echo \"$ORRERY_SCHEDULED_FOR $ORRERY_ATTEMPT $(date +%s%3N)\" >> '" + file + "'";
  }

  struct Execution {
    std::string slot;
    int attempt = 0;
    TimeMs started = 0;
  };
  // What record_to wrote, in order.
  static std::vector<Execution> executions(const std::string& file) {
    std::vector<Execution> result;
    for (const std::string& line : lines(testing::read_file(file))) {
      Execution execution;
      const size_t first = line.find(' ');
      const size_t second = line.find(' ', first + 1);
      if (first == std::string::npos || second == std::string::npos) continue;
      execution.slot = line.substr(0, first);
      execution.attempt = std::stoi(line.substr(first + 1, second - first - 1));
      execution.started = std::stoll(line.substr(second + 1));
      result.push_back(execution);
    }
    return result;
  }

  // A loop of slots `period_ms` apart, its history against what its target
  // recorded (record_to): every slot from the first to the last has exactly
  // one row and it is terminal; a succeeded slot was executed exactly once, a
  // skipped one never, and no slot twice.
  void expect_each_slot_once(const std::string& name, const std::string& record,
                             TimeMs period_ms = 1000) const {
    const json all = runs(name);
    ASSERT_FALSE(all.empty()) << name;
    const TimeMs first = ms_of(all[0]["scheduled_for"]);
    std::map<std::string, int> executed;
    for (const Execution& execution : executions(record)) ++executed[execution.slot];
    for (size_t i = 0; i < all.size(); ++i) {
      const json& run = all[i];
      const std::string slot = run["scheduled_for"];
      EXPECT_EQ(ms_of(run["scheduled_for"]), first + TimeMs(i) * period_ms) << all.dump(1);
      EXPECT_FALSE(in_flight(run)) << run.dump();
      if (run["status"] == "succeeded") {
        EXPECT_EQ(executed[slot], 1) << slot << " of " << name;
      } else if (run["status"] == "skipped") {
        EXPECT_EQ(executed[slot], 0) << slot << " of " << name;
      } else {
        ADD_FAILURE() << "unexpected " << run.dump();
      }
    }
    for (const auto& [slot, count] : executed) EXPECT_LE(count, 1) << slot << " of " << name;
  }

  // Stops whatever runs left behind: supervisors and target process groups.
  void stop_everything_the_runs_started() {
    const RunResult listed = run({"--json", "runs", "--limit", "10000"});
    const json all = json::parse(listed.out, nullptr, false);
    if (!all.is_array()) return;
    for (const json& run : all) {
      if (!in_flight(run)) continue;
      if (run["supervisor_pid"].is_number_integer()) {
        ::kill(run["supervisor_pid"].get<pid_t>(), SIGKILL);
      }
      if (run["pid"].is_number_integer()) ::kill(-run["pid"].get<pid_t>(), SIGKILL);
    }
  }

  std::vector<Daemon> daemons_;
};

}  // namespace orrery
