// Black-box tests of `orrery run next-in DURATION` (docs/cli.md): it works
// only inside a running run of a dynamic loop (found through ORRERY_RUN_ID);
// anything else, and every bad duration, is exit 2 with nothing changed.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include "cli_fixture.h"

namespace orrery {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

class NextInCli : public CliFixture {
 protected:
  // The choice stored on the run (read under the binary, as the daemon reads it).
  std::optional<std::int64_t> stored_choice(const std::string& run_id) const {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open_v2((home_ + "/orrery.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr),
              SQLITE_OK);
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT next_in_ms FROM runs WHERE id = ?1", -1, &statement,
                                 nullptr),
              SQLITE_OK);
    sqlite3_bind_text(statement, 1, run_id.c_str(), -1, SQLITE_TRANSIENT);
    std::optional<std::int64_t> choice;
    if (sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_type(statement, 0) != SQLITE_NULL) {
      choice = sqlite3_column_int64(statement, 0);
    }
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return choice;
  }

  // A dynamic loop whose target runs `orrery run next-in ARGS` (and prints what it says).
  void add_chooser(const std::string& name, const std::string& args,
                   const Args& schedule = {"--dynamic", "--min", "1m", "--max", "2h"}) const {
    Args full = schedule;
    full.insert(full.end(), {"--env", std::string("ORRERY_BIN=") + ORRERY_BINARY, "--shell",
                             "\"$ORRERY_BIN\" run next-in " + args});
    add(name, full);
  }
};

// Outside any run: exit 2, and the data directory is not even created.
TEST_F(NextInCli, OutsideARunIsRefused) {
  const std::string error = expect_error({"run", "next-in", "20m"}, 2);
  EXPECT_EQ(error,
            "orrery: run next-in works only inside a running run (ORRERY_RUN_ID is not set)\n");
  EXPECT_FALSE(fs::exists(home_));
}

// ORRERY_RUN_ID naming no run, or a run that is not running.
TEST_F(NextInCli, ARunThatIsNotRunningIsRefused) {
  add("dyn", {"--dynamic", "--", "true"});
  const json done = json_of({"trigger", "dyn", "--wait"});
  const std::vector<std::pair<std::string, std::string>> cases{
      {"01a2d2d4f0d3a2c86a0ad4bc7b0a41e5", "names no run: '01a2d2d4f0d3a2c86a0ad4bc7b0a41e5'"},
      {"nonsense", "names no run: 'nonsense'"},
      {done["id"].get<std::string>(),
       "names run " + done["id"].get<std::string>() + ", which is succeeded"},
  };
  for (const auto& [id, why] : cases) {
    const RunResult result = run({"run", "next-in", "20m"}, {{"ORRERY_RUN_ID", id}});
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(result.err,
              "orrery: run next-in works only inside a running run (ORRERY_RUN_ID " + why + ")\n");
  }
}

// Bad durations are refused before anything is looked at.
TEST_F(NextInCli, BadDurationsAreRefused) {
  for (const std::string bad : {"-5m", "abc", "5x", "400d", "1h-", "9999999999999999d"}) {
    const RunResult result =
        run({"run", "next-in", bad}, {{"ORRERY_RUN_ID", "01a2d2d4f0d3a2c86a0ad4bc7b0a41e5"}});
    EXPECT_EQ(result.exit_code, 2) << bad << ": " << result.err;
    EXPECT_EQ(result.out, "") << bad;
    EXPECT_EQ(lines(result.err).size(), 1u) << bad << ": " << result.err;
    EXPECT_FALSE(fs::exists(home_)) << bad;
  }
  const std::string empty = expect_error({"run", "next-in", ""}, 2);
  EXPECT_TRUE(contains(empty, "run next-in: invalid duration ''")) << empty;
  const std::string missing = expect_error({"run", "next-in"}, 2);
  EXPECT_TRUE(contains(missing, "DURATION")) << missing;
}

// Inside a run of a dynamic loop the choice is stored and reported, clamped
// to the loop's --min and --max.
TEST_F(NextInCli, InsideARunTheChoiceIsStored) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"20m", "the next slot of loop c20m: 20m after this run finishes\n"},
      {"1h30m", "the next slot of loop c1h30m: 1h30m after this run finishes\n"},
      {"5s",
       "the next slot of loop c5s: 1m after this run finishes (5s clamped to the loop's "
       "--min 1m)\n"},
      {"0",
       "the next slot of loop c0: 1m after this run finishes (0s clamped to the loop's --min "
       "1m)\n"},
      {"1d",
       "the next slot of loop c1d: 2h after this run finishes (1d clamped to the loop's "
       "--max 2h)\n"},
  };
  const std::vector<std::int64_t> stored{1'200'000, 5'400'000, 5'000, 0, 86'400'000};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& [choice, said] = cases[i];
    add_chooser("c" + choice, choice);
    const json run = json_of({"trigger", "c" + choice, "--wait"});
    EXPECT_EQ(run["status"], "succeeded") << run.dump();
    EXPECT_EQ(run["stdout"], said);
    EXPECT_EQ(run["stderr"], "");
    EXPECT_EQ(stored_choice(run["id"].get<std::string>()), stored[i]) << choice;
  }
}

// The last choice of a run wins; a run that chooses nothing stores nothing.
TEST_F(NextInCli, TheLastChoiceWins) {
  add_chooser("twice", "5m >/dev/null && \"$ORRERY_BIN\" run next-in 7m");
  const json run = json_of({"trigger", "twice", "--wait"});
  EXPECT_EQ(run["stdout"], "the next slot of loop twice: 7m after this run finishes\n");
  EXPECT_EQ(stored_choice(run["id"].get<std::string>()), 420'000);
  add("silent", {"--dynamic", "--", "true"});
  const json quiet = json_of({"trigger", "silent", "--wait"});
  EXPECT_EQ(stored_choice(quiet["id"].get<std::string>()), std::nullopt);
}

// A loop that is not dynamic has no use for the choice: the command fails in the run.
TEST_F(NextInCli, OnlyADynamicLoopTakesAChoice) {
  add_chooser("hourly", "20m", {"--every", "1h"});
  const json run = json_of({"trigger", "hourly", "--wait"}, 1);
  EXPECT_EQ(run["exit_code"], 2);
  EXPECT_EQ(run["stderr"],
            "orrery: run next-in works only for a --dynamic loop; loop hourly has an --every "
            "schedule\n");
  add_chooser("bad", "400d");
  const json bad = json_of({"trigger", "bad", "--wait"}, 1);
  EXPECT_EQ(bad["exit_code"], 2);
}

// The daemon plans a dynamic loop's next slot from its run's choice.
TEST_F(NextInCli, TheDaemonHonoursTheChoice) {
  start_daemon();
  add_chooser("dyn", "30m", {"--dynamic", "--min", "1s", "--max", "1h"});
  json runs;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  json loop;
  while (std::chrono::steady_clock::now() < deadline) {
    runs = json_of({"runs", "dyn"});
    loop = show_loop("dyn");
    if (!runs.empty() && runs[0]["status"] == "succeeded" && loop["next_run_at"].is_string()) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(runs.empty()) << daemon_log();
  ASSERT_EQ(runs[0]["status"], "succeeded") << runs.dump() << daemon_log();
  ASSERT_TRUE(loop["next_run_at"].is_string()) << loop.dump() << daemon_log();
  const std::int64_t finished = time_ms(runs[0]["finished_at"].get<std::string>());
  const std::int64_t next = time_ms(loop["next_run_at"].get<std::string>());
  EXPECT_GE(next, finished + 30 * 60'000 - 1000) << loop.dump();
  EXPECT_LE(next, finished + 30 * 60'000 + 1000) << loop.dump();
  EXPECT_EQ(runs.size(), 1u);
}

}  // namespace
}  // namespace orrery
