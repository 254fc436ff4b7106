// Black-box tests of `orrery status` (docs/cli.md, "orrery status"): the
// daemon lease, loops and runs by status, the running runs, the next due
// slot and the cooldowns, against the real binary. A daemon's lease and a
// cooldown are written straight into the database, as a daemon and a
// supervisor would write them.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "cli_fixture.h"

namespace orrery {
namespace {

using nlohmann::json;

std::int64_t wall_now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

class StatusCli : public CliFixture {
 protected:
  void sql(const std::string& statement) const {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((home_ + "/orrery.db").c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    const int rc = sqlite3_exec(db, statement.c_str(), nullptr, nullptr, &error);
    EXPECT_EQ(rc, SQLITE_OK) << (error ? error : "") << "\n" << statement;
    sqlite3_free(error);
    sqlite3_close(db);
  }

  void write_lease(int pid, std::int64_t generation, std::int64_t acquired_at,
                   std::int64_t expires_at) const {
    sql("INSERT OR REPLACE INTO daemon_lease (slot, lease_id, generation, pid, host, acquired_at, "
        "heartbeat_at, expires_at) VALUES (1, '" +
        std::to_string(generation) + "-lease', " + std::to_string(generation) + ", " +
        std::to_string(pid) + ", 'box', " + std::to_string(acquired_at) + ", " +
        std::to_string(acquired_at) + ", " + std::to_string(expires_at) + ")");
  }

  json status() const { return json_of({"status"}); }
};

TEST_F(StatusCli, AFreshDataDirectoryHasNothing) {
  const json doc = status();
  EXPECT_EQ(doc["daemon"], json({{"held", false},
                                 {"pid", nullptr},
                                 {"host", nullptr},
                                 {"since", nullptr},
                                 {"expires_at", nullptr},
                                 {"released_at", nullptr},
                                 {"generation", nullptr}}));
  EXPECT_EQ(
      doc["loops"],
      json({{"active", 0}, {"paused", 0}, {"expired", 0}, {"completed", 0}, {"archived", 0}}));
  for (const char* status : {"running", "queued", "succeeded", "failed", "timed_out", "abandoned",
                             "skipped", "cancelled"}) {
    EXPECT_EQ(doc["runs"][status], 0) << status;
  }
  EXPECT_EQ(doc["running"], json::array());
  EXPECT_TRUE(doc["next_due"].is_null());
  EXPECT_EQ(doc["cooldowns"], json::array());
  const RunResult human = run({"status"});
  EXPECT_EQ(human.exit_code, 0);
  EXPECT_TRUE(contains(human.out, "daemon     not running\n")) << human.out;
  EXPECT_TRUE(contains(human.out, "next due   -\n")) << human.out;
  EXPECT_TRUE(contains(human.out, "cooldowns  none\n")) << human.out;
}

// Loops by status (archived apart), runs by status, and the loop due first.
TEST_F(StatusCli, CountsLoopsAndRunsByStatusAndNamesTheNextDueLoop) {
  add("hourly", {"--every", "1h", "--", "true"});
  const json soon = add("soon", {"--every", "2m", "--", "false"});
  add("later", {"--every", "3h", "--", "true"});
  add("held", {"--every", "1m", "--", "true"});
  add("gone", {"--every", "1m", "--", "true"});
  json_of({"pause", "held"});
  json_of({"archive", "gone"});
  json_of({"trigger", "hourly", "--wait"});
  json_of({"trigger", "hourly", "--wait"});
  json_of({"trigger", "soon", "--wait"}, 1);
  const json doc = status();
  EXPECT_EQ(
      doc["loops"],
      json({{"active", 3}, {"paused", 1}, {"expired", 0}, {"completed", 0}, {"archived", 1}}));
  EXPECT_EQ(doc["runs"]["succeeded"], 2);
  EXPECT_EQ(doc["runs"]["failed"], 1);
  EXPECT_EQ(doc["runs"]["running"], 0);
  EXPECT_EQ(doc["next_due"],
            json({{"loop_id", soon["id"]}, {"loop_name", "soon"}, {"at", soon["next_run_at"]}}));
  const RunResult human = run({"status"});
  EXPECT_TRUE(
      contains(human.out, "loops      3 active, 1 paused, 0 expired, 0 completed; 1 archived"))
      << human.out;
  EXPECT_TRUE(contains(human.out, "runs       2 succeeded, 1 failed\n")) << human.out;
  EXPECT_TRUE(contains(human.out, "next due   soon at ")) << human.out;
}

TEST_F(StatusCli, ListsTheRunningRuns) {
  add("sleepy", {"--every", "1h", "--shell", "sleep 30"});
  const std::string id = trigger("sleepy");
  const json run = started(id);
  ASSERT_EQ(run["status"], "running") << run.dump();
  const json doc = status();
  EXPECT_EQ(doc["runs"]["running"], 1);
  ASSERT_EQ(doc["running"].size(), 1u) << doc.dump();
  EXPECT_EQ(doc["running"][0]["id"], id);
  EXPECT_EQ(doc["running"][0]["loop_name"], "sleepy");
  EXPECT_EQ(doc["running"][0]["pid"], run["pid"]);
  const RunResult human = CliFixture::run({"status"});
  EXPECT_TRUE(contains(human.out, "runs       1 running\n")) << human.out;
  EXPECT_TRUE(contains(human.out, "RUNNING")) << human.out;
  EXPECT_TRUE(shows_handle(human.out, id, " ")) << human.out;
  EXPECT_TRUE(contains(human.out, std::to_string(run["pid"].get<int>()))) << human.out;
}

// A lease counts as held while it has not expired; an expired one still
// names its last holder.
TEST_F(StatusCli, TheDaemonIsRunningWhileItsLeaseIsLive) {
  status();  // creates the database
  const std::int64_t now = wall_now_ms();
  write_lease(4242, 7, now - 60'000, now + 30'000);
  json daemon = status()["daemon"];
  EXPECT_EQ(daemon["held"], true);
  EXPECT_EQ(daemon["pid"], 4242);
  EXPECT_EQ(daemon["host"], "box");
  EXPECT_EQ(daemon["generation"], 7);
  EXPECT_EQ(time_ms(daemon["since"].get<std::string>()), now - 60'000);
  EXPECT_EQ(time_ms(daemon["expires_at"].get<std::string>()), now + 30'000);
  RunResult human = run({"status"});
  EXPECT_TRUE(contains(human.out, "daemon     running: pid 4242 on box since ")) << human.out;
  EXPECT_TRUE(contains(human.out, "generation 7")) << human.out;

  for (const std::int64_t expired : {now - 1, now - 3'600'000}) {
    write_lease(4243, 8, now - 7'200'000, expired);
    daemon = status()["daemon"];
    EXPECT_EQ(daemon["held"], false) << expired;
    EXPECT_EQ(daemon["pid"], 4243) << expired;
    human = run({"status"});
    EXPECT_TRUE(contains(human.out, "daemon     not running (the last daemon, pid 4243 on box"))
        << human.out;
  }
}

TEST_F(StatusCli, ShowsTheCooldownsInForce) {
  status();
  const std::int64_t now = wall_now_ms();
  sql("INSERT INTO cooldowns (account, until_at, hits, reason, updated_at) VALUES "
      "('claude', " +
      std::to_string(now + 600'000) + ", 2, 'usage limit reached', " + std::to_string(now) +
      "), ('codex', " + std::to_string(now - 1000) + ", 1, 'over', " + std::to_string(now) + ")");
  const json doc = status();
  ASSERT_EQ(doc["cooldowns"].size(), 1u) << doc.dump();
  EXPECT_EQ(doc["cooldowns"][0], json({{"account", "claude"},
                                       {"until", doc["cooldowns"][0]["until"]},
                                       {"hits", 2},
                                       {"reason", "usage limit reached"}}));
  EXPECT_EQ(time_ms(doc["cooldowns"][0]["until"].get<std::string>()), now + 600'000);
  const RunResult human = run({"status"});
  EXPECT_TRUE(contains(human.out, "cooldowns  claude until ")) << human.out;
  EXPECT_TRUE(contains(human.out, "2 hits: usage limit reached")) << human.out;
  EXPECT_FALSE(contains(human.out, "codex")) << human.out;
}

// With a daemon running, status names it; after it stops, it is not running.
TEST_F(StatusCli, ShowsTheRunningDaemon) {
  const int pid = start_daemon();
  const json daemon = status()["daemon"];
  EXPECT_EQ(daemon["held"], true) << daemon.dump();
  EXPECT_EQ(daemon["pid"], pid);
  EXPECT_TRUE(daemon["host"].is_string() && !daemon["host"].get<std::string>().empty());
  EXPECT_GE(daemon["generation"].get<std::int64_t>(), 1);
  EXPECT_GT(time_ms(daemon["expires_at"].get<std::string>()), wall_now_ms());
  const RunResult human = run({"status"});
  EXPECT_TRUE(contains(human.out, "daemon     running: pid " + std::to_string(pid) + " on "))
      << human.out;
  const std::int64_t before_stop = wall_now_ms();
  stop_daemon();
  // A clean stop releases the lease: its time is shown, never the epoch.
  const json released = status()["daemon"];
  EXPECT_EQ(released["held"], false);
  EXPECT_EQ(released["expires_at"], nullptr) << released.dump();
  ASSERT_TRUE(released["released_at"].is_string()) << released.dump();
  const std::int64_t at = time_ms(released["released_at"].get<std::string>());
  EXPECT_GE(at, before_stop);
  EXPECT_LE(at, wall_now_ms());
  const RunResult stopped = run({"status"});
  EXPECT_TRUE(contains(stopped.out, "stopped and released the lease at ")) << stopped.out;
  EXPECT_FALSE(contains(stopped.out, "1970")) << stopped.out;
  EXPECT_FALSE(contains(stopped.out, "20788d")) << stopped.out;
}

}  // namespace
}  // namespace orrery
