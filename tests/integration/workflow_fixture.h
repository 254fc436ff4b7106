// A fixture for black-box tests of workflows (docs/workflows.md): CliFixture
// plus spec files written into the test's directory, workflow runs started,
// read and polled with a deadline, the journal read, and SQL on the SQLite
// database for the few scenarios that must move time forward (an engine
// lease made to expire).
#pragma once

#include <sqlite3.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <map>

#include "cli_fixture.h"

namespace orrery {

class WorkflowFixture : public CliFixture {
 protected:
  // Writes `text` to <tmp>/<name>; its path.
  std::string write_file(const std::string& name, const std::string& text) const {
    const std::string path = tmp_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  std::string read_file(const std::string& path) const {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
  }

  // Writes the spec (YAML) and creates the workflow; its document.
  json create(const std::string& name, const std::string& yaml) {
    return json_of({"workflow", "create", write_file(name + ".yaml", yaml)});
  }

  // `workflow run W --wait` with --json: the finished run's document.
  json run_wait(const std::string& workflow, int exit_code = 0, const Args& more = {}) const {
    Args args{"workflow", "run", workflow, "--wait"};
    args.insert(args.end(), more.begin(), more.end());
    return json_of(args, exit_code);
  }

  // `workflow run W` (a detached driver) with --json: the run's document.
  json run_detached(const std::string& workflow, const Args& more = {}) const {
    Args args{"workflow", "run", workflow};
    args.insert(args.end(), more.begin(), more.end());
    return json_of(args);
  }

  json show_workflow_run(const std::string& run_id) const {
    return json_of({"workflow", "show-run", run_id});
  }

  json events(const std::string& run_id) const { return json_of({"workflow", "events", run_id}); }

  // The run's step document with the given id (null if none).
  static json step_of(const json& run, const std::string& step_id) {
    for (const json& step : run["steps"]) {
      if (step["step_id"] == step_id) return step;
    }
    return nullptr;
  }

  // Polls the workflow run until `done` holds, up to `limit`; the last document.
  json poll_workflow_run(const std::string& run_id, const std::function<bool(const json&)>& done,
                         std::chrono::milliseconds limit = std::chrono::seconds(10)) const {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    json run = show_workflow_run(run_id);
    while (!done(run) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      run = show_workflow_run(run_id);
    }
    return run;
  }

  json workflow_run_finished(const std::string& run_id,
                             std::chrono::milliseconds limit = std::chrono::seconds(10)) const {
    return poll_workflow_run(
        run_id, [](const json& r) { return r["status"] != "running" && r["status"] != "pending"; },
        limit);
  }

  // Polls until `done` holds, up to `limit`; whether it did.
  static bool eventually(const std::function<bool()>& done,
                         std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }

  // The number from a file a step wrote (a pid), once it is complete (ends
  // with a newline); 0 if it never appears within the deadline.
  int pid_from_file(const std::string& path) {
    int pid = 0;
    eventually([&] {
      const std::string text = read_file(path);
      if (text.empty() || text.back() != '\n') return false;
      pid = std::stoi(text);
      return true;
    });
    if (pid > 0) groups_to_kill_.push_back(pid);
    return pid;
  }

  // The (event_type, step_id) pairs of a journal, in its order.
  static std::vector<std::pair<std::string, std::string>> event_list(const json& journal) {
    std::vector<std::pair<std::string, std::string>> list;
    for (const json& event : journal) {
      list.emplace_back(event["event_type"].get<std::string>(),
                        event["step_id"].is_null() ? "" : event["step_id"].get<std::string>());
    }
    return list;
  }

  // Starts orrery with --home and `args` in the background (output to
  // /dev/null); its pid. The caller waits for it (reap()).
  pid_t spawn(const Args& args) const {
    std::vector<std::string> full{ORRERY_BINARY};
    for (const std::string& arg : with_home(args)) full.push_back(arg);
    const pid_t pid = fork();
    if (pid == 0) {
      const int null = open("/dev/null", O_RDWR);
      dup2(null, STDIN_FILENO);
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
      std::vector<char*> argv;
      for (std::string& arg : full) argv.push_back(arg.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    return pid;
  }

  // Waits for a child started by spawn(); its wait status.
  static int reap(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
  }

  // Runs SQL on the data directory's SQLite database.
  void exec_sql(const std::string& sql) const {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((home_ + "/orrery.db").c_str(), &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
        << sql << ": " << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
};

inline bool process_alive(pid_t pid) { return ::kill(pid, 0) == 0; }

}  // namespace orrery
