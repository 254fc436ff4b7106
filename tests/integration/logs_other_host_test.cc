// A run of another host (a runner elsewhere sharing a PostgreSQL database):
// its log files are on that host's disk, so `logs` prints the tail the
// database stored and says where the full log is, `logs --follow` says it can
// only be followed there, and `run show` names the host.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include "run_binary.h"
#include "support/temp_dir.h"

namespace orrery {
namespace {

void exec_sql(const std::string& database, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(database.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
  sqlite3_close(db);
}

void move_runs_to(const std::string& database, const std::string& host) {
  exec_sql(database, "UPDATE runs SET host = '" + host + "'");
}

TEST(LogsOtherHost, TheStoredTailIsPrintedWithWhereTheFullLogIs) {
  testing::TempDir dir;
  const std::string home = dir.file("home");
  const auto orrery = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--home", home});
    return run_orrery(args);
  };
  ASSERT_EQ(orrery({"add", "far", "--every", "1h", "--shell", "echo out-line; echo err-line >&2"})
                .exit_code,
            0);
  const RunResult started = orrery({"trigger", "--wait", "far"});
  ASSERT_EQ(started.exit_code, 0) << started.err;
  const auto run = nlohmann::json::parse(orrery({"--json", "runs", "far"}).out).at(0);
  const std::string run_id = run["id"];
  EXPECT_FALSE(run["host"].is_null());  // the local host, recorded by the claim
  move_runs_to(home + "/orrery.db", "runner-elsewhere");
  // The local log file is not what is shown: it would be another host's.
  ASSERT_EQ(std::remove((home + "/runs/" + run_id + "/stdout.log").c_str()), 0);

  const RunResult out = orrery({"logs", run_id});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(out.out, "out-line\n");
  EXPECT_NE(out.err.find("ran on host runner-elsewhere"), std::string::npos) << out.err;
  EXPECT_NE(out.err.find("runs/" + run_id + "/stdout.log"), std::string::npos) << out.err;
  EXPECT_EQ(orrery({"logs", "--stderr", run_id}).out, "err-line\n");
  const auto json = nlohmann::json::parse(orrery({"--json", "logs", run_id}).out);
  EXPECT_EQ(json["host"], "runner-elsewhere");
  EXPECT_EQ(json["stored_tail"], true);
  EXPECT_EQ(json["text"], "out-line\n");

  const RunResult follow = orrery({"logs", "--follow", run_id});
  EXPECT_EQ(follow.exit_code, 2);
  EXPECT_NE(follow.err.find("follow it on that host"), std::string::npos) << follow.err;

  // While the runner that claimed it is registered, its data directory is
  // known: the full log's path is given whole.
  exec_sql(home + "/orrery.db",
           "UPDATE runs SET claimed_by = 'daemon@runner-elsewhere:42'; INSERT INTO runners (id, "
           "host, labels, pid, home, started_at, last_seen_at) VALUES "
           "('daemon@runner-elsewhere:42', 'runner-elsewhere', 'host=runner-elsewhere', 42, "
           "'/srv/orrery-runner', 1, 1)");
  const RunResult placed = orrery({"logs", run_id});
  EXPECT_NE(placed.err.find("in /srv/orrery-runner/runs/" + run_id + "/stdout.log"),
            std::string::npos)
      << placed.err;
  EXPECT_EQ(nlohmann::json::parse(orrery({"--json", "logs", run_id}).out)["path"],
            "/srv/orrery-runner/runs/" + run_id + "/stdout.log");

  const RunResult shown = orrery({"run", "show", run_id});
  EXPECT_NE(shown.out.find("runner-elsewhere"), std::string::npos) << shown.out;
  EXPECT_EQ(nlohmann::json::parse(orrery({"--json", "run", "show", run_id}).out)["host"],
            "runner-elsewhere");
}

}  // namespace
}  // namespace orrery
