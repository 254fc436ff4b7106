// A fixture for black-box tests of commands that start runs: HomeFixture
// plus JSON helpers, polling for a run's state with a deadline, and the
// process groups a test started killed in TearDown whatever its outcome.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "home_fixture.h"

namespace orrery {

class CliFixture : public HomeFixture {
 protected:
  using json = nlohmann::json;

  void TearDown() override {
    stop_daemon();
    for (int pgid : groups_to_kill_) ::kill(-pgid, SIGKILL);
    HomeFixture::TearDown();
  }

  // Starts `orrery daemon` on the test's data directory (its stderr in a
  // file) and waits until it says it is ready; its pid.
  int start_daemon() {
    daemon_log_ = tmp_ + "/daemon.log";
    // Emptied before the fork: a restart must not find the last daemon's "ready".
    std::ofstream(daemon_log_, std::ios::trunc).close();
    std::vector<std::string> args{ORRERY_BINARY, "--home", home_, "daemon", "--lease-ttl", "3s"};
    daemon_pid_ = fork();
    if (daemon_pid_ == 0) {
      const int null = open("/dev/null", O_RDWR);
      const int log = open(daemon_log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
      dup2(null, STDIN_FILENO);
      dup2(null, STDOUT_FILENO);
      dup2(log, STDERR_FILENO);
      std::vector<char*> argv;
      for (std::string& arg : args) argv.push_back(arg.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (daemon_log().find("ready") == std::string::npos &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_NE(daemon_log().find("ready"), std::string::npos) << daemon_log();
    return daemon_pid_;
  }

  std::string daemon_log() const {
    std::ifstream file(daemon_log_);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
  }

  // SIGTERM, then SIGKILL if it has not exited within 10 s.
  void stop_daemon() {
    if (daemon_pid_ <= 0) return;
    ::kill(daemon_pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (waitpid(daemon_pid_, nullptr, WNOHANG) != daemon_pid_) {
      if (std::chrono::steady_clock::now() >= deadline) {
        ::kill(daemon_pid_, SIGKILL);
        waitpid(daemon_pid_, nullptr, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    daemon_pid_ = -1;
  }

  // Runs `args` with --json in front, expects `exit_code` and nothing on
  // stderr; the document on stdout.
  json json_of(const Args& args, int exit_code = 0, const EnvVars& env = {}) const {
    Args full{"--json"};
    full.insert(full.end(), args.begin(), args.end());
    const RunResult result = run(full, env);
    EXPECT_EQ(result.exit_code, exit_code) << describe(with_home(full), result);
    EXPECT_EQ(result.err, "") << describe(with_home(full), result);
    json document = json::parse(result.out, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(document.is_discarded()) << describe(with_home(full), result);
    return document;
  }

  // Adds a loop (no daemon runs it) with the given schedule, options and target.
  json add(const std::string& name, const Args& rest) const {
    Args args{"add", name};
    args.insert(args.end(), rest.begin(), rest.end());
    return json_of(args);
  }

  json show_loop(const std::string& loop) const { return json_of({"show", loop}); }
  json show_run(const std::string& run) const { return json_of({"run", "show", run}); }

  // Triggers the loop in the background; the run id. The target's group is
  // killed at the end of the test once it is known (see started()).
  std::string trigger(const std::string& loop, const Args& more = {}) const {
    Args args{"trigger", loop};
    args.insert(args.end(), more.begin(), more.end());
    return json_of(args)["run_id"].get<std::string>();
  }

  // Polls until `done` holds for the run's document, up to `limit`; the last document.
  json poll_run(const std::string& run_id, const std::function<bool(const json&)>& done,
                std::chrono::milliseconds limit = std::chrono::seconds(10)) const {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    json run = show_run(run_id);
    while (!done(run) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      run = show_run(run_id);
    }
    return run;
  }

  // Waits until the run's target is recorded; its group is killed at the end.
  json started(const std::string& run_id) {
    json run = poll_run(
        run_id, [](const json& r) { return !r["pid"].is_null() || r["status"] != "running"; });
    if (run["pid"].is_number()) groups_to_kill_.push_back(run["pid"].get<int>());
    return run;
  }

  json finished(const std::string& run_id,
                std::chrono::milliseconds limit = std::chrono::seconds(10)) const {
    return poll_run(
        run_id,
        [](const json& r) {
          return r["status"] != "running" && r["status"] != "queued" && r["status"] != "pending";
        },
        limit);
  }

  // The handles a human listing shows (docs/cli.md, "Ids"): the first
  // column of every row below the header, of one length of at least 8
  // characters, each a prefix of exactly one of `ids` (every row's id), and
  // `show(handle)`'s document names that id. Returns the handles.
  std::vector<std::string> expect_handles(
      const Args& listing, const std::vector<std::string>& ids,
      const std::function<Args(const std::string&)>& show) const {
    const RunResult listed = run(listing);
    EXPECT_EQ(listed.exit_code, 0) << listed.err;
    std::vector<std::string> handles;
    std::istringstream lines(listed.out);
    std::string line;
    std::getline(lines, line);  // the header
    while (std::getline(lines, line) && !line.empty() && line[0] != ' ') {
      const std::string handle = line.substr(0, line.find(' '));
      if (handle.find_first_not_of("0123456789abcdef") != std::string::npos) break;
      handles.push_back(handle);
    }
    EXPECT_EQ(handles.size(), ids.size()) << listed.out;
    for (const std::string& handle : handles) {
      EXPECT_GE(handle.size(), 8u) << listed.out;
      EXPECT_EQ(handle.size(), handles.front().size()) << listed.out;
      std::vector<std::string> matching;
      for (const std::string& id : ids)
        if (id.rfind(handle, 0) == 0) matching.push_back(id);
      EXPECT_EQ(matching.size(), 1u) << handle << " in\n" << listed.out;
      if (matching.size() != 1) continue;
      EXPECT_EQ(json_of(show(handle))["id"], matching.front()) << handle;
    }
    return handles;
  }

  std::vector<int> groups_to_kill_;
  int daemon_pid_ = -1;
  std::string daemon_log_;
};

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace orrery
