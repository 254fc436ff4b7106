// A fixture for black-box tests of commands that start runs: HomeFixture
// plus JSON helpers, polling for a run's state with a deadline, and the
// process groups a test started killed in TearDown whatever its outcome.
#pragma once

#include <signal.h>

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "home_fixture.h"

namespace orrery {

class CliFixture : public HomeFixture {
 protected:
  using json = nlohmann::json;

  void TearDown() override {
    for (int pgid : groups_to_kill_) ::kill(-pgid, SIGKILL);
    HomeFixture::TearDown();
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
        run_id, [](const json& r) { return r["status"] != "running" && r["status"] != "queued"; },
        limit);
  }

  std::vector<int> groups_to_kill_;
};

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace orrery
