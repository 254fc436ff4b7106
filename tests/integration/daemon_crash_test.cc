// Black-box scenarios of crash safety and the daemon lease, in real time
// (docs/daemon.md; docs/execution.md, "Recovery"):
// - a daemon killed outright leaves its runs to their supervisors, which
//   finish and record them; a restarted daemon runs no slot twice and every
//   slot ends in one terminal state;
// - a supervisor killed outright: its run becomes `abandoned`, its target's
//   process group is killed, and the slot is attempted again per policy;
// - two daemons on one data directory: the second exits 4 naming the holder;
//   a daemon whose lease was taken over while it was stopped exits 4 when it
//   continues, having written nothing;
// - a run directory that cannot be made fails each run at once, with why;
// - an idle daemon (100 loops, none due) wakes only for its lease heartbeats.
// Targets append "SLOT ATTEMPT START_MS" to a file, so executions are
// counted from the target's side, not only from the history.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "daemon_fixture.h"

namespace orrery {
namespace {

constexpr int kExitConflict = 4;

bool alive(pid_t pid) { return ::kill(pid, 0) == 0; }

class DaemonCrash : public DaemonFixture {};

TEST_F(DaemonCrash, ADaemonKilledWithRunsInFlightLeavesThemToFinishAndARestartRunsNoSlotTwice) {
  constexpr int kLoops = 3;
  for (int i = 0; i < kLoops; ++i) {
    const std::string name = "busy-" + std::to_string(i);
    add(name, {"--every", "1s", "--shell", record_to(tmp_ + "/" + name) + "; sleep 2"});
  }
  const size_t first = start_held_daemon();
  std::vector<json> in_flight_runs;
  ASSERT_TRUE(eventually([&] {
    in_flight_runs.clear();
    for (const json& run : runs()) {
      if (run["status"] == "running" && run["pid"].is_number_integer()) {
        in_flight_runs.push_back(run);
      }
    }
    return in_flight_runs.size() >= 2;
  })) << runs().dump(1)
      << log_of(first);
  EXPECT_EQ(stop_daemon(first, SIGKILL), 128 + SIGKILL);

  // Their supervisors live on, finish the runs and record them.
  for (const json& run : in_flight_runs) {
    EXPECT_TRUE(alive(run["supervisor_pid"].get<pid_t>())) << run.dump();
  }
  for (const json& run : in_flight_runs) {
    json finished;
    EXPECT_TRUE(eventually([&] {
      finished = json_of({"run", "show", run["id"].get<std::string>()});
      return finished["status"] != "running";
    })) << finished.dump();
    EXPECT_EQ(finished["status"], "succeeded") << finished.dump();
  }
  // A while with no daemon: slots are missed. Then a second daemon.
  std::this_thread::sleep_for(milliseconds(1500));
  const size_t second = start_held_daemon();
  std::this_thread::sleep_for(milliseconds(2500));
  EXPECT_EQ(stop_daemon(second), 0) << log_of(second);
  ASSERT_TRUE(wait_until_settled());
  for (int i = 0; i < kLoops; ++i) {
    const std::string name = "busy-" + std::to_string(i);
    expect_each_slot_once(name, tmp_ + "/" + name);
  }
}

TEST_F(DaemonCrash, AKilledSupervisorsRunIsAbandonedItsGroupKilledAndTheSlotRetried) {
  const std::string record = tmp_ + "/orphaned";
  // The first execution hangs; a later one succeeds.
  add("orphaned",
      {"--at", "+1s", "--lease", "3s", "--max-attempts", "2", "--retry-delay", "1m", "--shell",
       record_to(record) + "; if mkdir '" + tmp_ + "/hung' 2>/dev/null; then exec sleep 30; fi"});
  const size_t daemon = start_held_daemon();
  json started;
  // Its target is recorded before it is let run (docs/execution.md): the
  // supervisor is killed once the first execution is known to hang.
  ASSERT_TRUE(eventually([&] {
    const json all = runs("orphaned");
    if (all.empty() || all[0]["status"] != "running" || !all[0]["pid"].is_number_integer()) {
      return false;
    }
    started = all[0];
    return std::filesystem::exists(tmp_ + "/hung");
  })) << log_of(daemon);
  const pid_t target = started["pid"];
  ASSERT_EQ(::kill(started["supervisor_pid"].get<pid_t>(), SIGKILL), 0);

  // Abandoned (the daemon logs it), the target's group killed.
  const std::string id = started["id"].get<std::string>();
  ASSERT_TRUE(eventually([&] { return contains(log_of(daemon), "recovered run " + id); },
                         milliseconds(8000), milliseconds(10)))
      << log_of(daemon);
  EXPECT_TRUE(contains(log_of(daemon), "recovered run " + id + " of loop orphaned: abandoned ("))
      << log_of(daemon);
  EXPECT_TRUE(eventually([&] { return !testing::group_alive(target); }, milliseconds(3000)));

  ASSERT_TRUE(eventually([&] { return loop("orphaned")["status"] == "completed"; }))
      << runs("orphaned").dump(1) << log_of(daemon);
  const json all = runs("orphaned");
  ASSERT_EQ(all.size(), 1u) << all.dump(1);
  EXPECT_EQ(all[0]["status"], "succeeded") << all.dump(1);
  const std::vector<Execution> ran = executions(record);
  ASSERT_EQ(ran.size(), 2u) << testing::read_file(record);
  // An abandoned slot is re-attempted at once, without using an attempt
  // (docs/scheduling.md, "Retries"): the loop completed well within the
  // 1 minute its retry delay would have made it wait.
  EXPECT_EQ(ran[1].attempt, 1);
  EXPECT_EQ(all[0]["attempt"], 1);
  EXPECT_EQ(stop_daemon(daemon), 0) << log_of(daemon);
}

// The supervisor makes its run directory: when it cannot, the run is failed
// at once with the reason, and the daemon carries on with the next slot.
TEST_F(DaemonCrash, ARunsDirectoryThatCannotBeMadeFailsTheRunAtOnce) {
  const std::vector<std::pair<std::string, std::function<void(const std::string&)>>> breakages = {
      {"runs is a file", [](const std::string& runs) { std::ofstream(runs) << "not a dir"; }},
      {"runs is a FIFO", [](const std::string& runs) { ::mkfifo(runs.c_str(), 0600); }},
      {"runs is a symlink to a file",
       [](const std::string& runs) {
         std::ofstream(runs + ".target") << "x";
         std::filesystem::create_symlink(runs + ".target", runs);
       }},
  };
  for (const auto& [name, apply] : breakages) {
    TearDown();
    SetUp();
    add("doomed", {"--every", "1s", "--", "/bin/true"});
    apply(home_ + "/runs");
    const size_t daemon = start_held_daemon();
    json all;
    ASSERT_TRUE(eventually([&] {
      all = runs("doomed");
      return all.size() >= 2 && !in_flight(all[0]) && !in_flight(all[1]);
    })) << name
        << log_of(daemon);
    for (const json& run : all) {
      if (in_flight(run)) continue;
      EXPECT_EQ(run["status"], "failed") << name << run.dump();
      EXPECT_TRUE(contains(run["error"].get<std::string>(), "the supervisor could not start: "))
          << name << run.dump();
    }
    EXPECT_EQ(stop_daemon(daemon), 0) << log_of(daemon);
  }
}

TEST_F(DaemonCrash, OneDaemonPerDataDirectoryAndAStaleOneCannotWrite) {
  const std::string record = tmp_ + "/tick";
  add("tick", {"--every", "1s", "--shell", record_to(record)});
  const size_t holder = start_held_daemon({"--lease-ttl", "3s"});

  // A second daemon exits 4 naming the holder.
  const size_t refused = start_daemon();
  EXPECT_EQ(wait_daemon_exit(refused), kExitConflict) << log_of(refused);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const std::string refusal = log_of(refused);
  EXPECT_TRUE(contains(refusal, std::to_string(pid_of(holder)))) << refusal;
  EXPECT_TRUE(contains(refusal, host)) << refusal;
  EXPECT_EQ(status()["daemon"]["pid"], pid_of(holder));

  // The holder stops past its lease (3 s); another daemon takes over.
  ASSERT_EQ(::kill(pid_of(holder), SIGSTOP), 0);
  std::this_thread::sleep_for(milliseconds(3500));
  const size_t successor = start_held_daemon();
  const size_t rows_before = runs("tick").size();
  // The stale holder continues: its writes are refused, it exits 4.
  ASSERT_EQ(::kill(pid_of(holder), SIGCONT), 0);
  EXPECT_EQ(wait_daemon_exit(holder), kExitConflict) << log_of(holder);
  EXPECT_TRUE(contains(log_of(holder), "lease lost")) << log_of(holder);
  EXPECT_EQ(status()["daemon"]["pid"], pid_of(successor));
  // The successor still gets wake-ups and runs the loop.
  EXPECT_TRUE(std::filesystem::exists(home_ + "/daemon.sock"))
      << "the stale daemon removed its successor's wake-up socket";
  EXPECT_TRUE(eventually([&] { return runs("tick").size() >= rows_before + 2; }))
      << log_of(successor);
  EXPECT_EQ(stop_daemon(successor), 0) << log_of(successor);
  ASSERT_TRUE(wait_until_settled("tick"));
  expect_each_slot_once("tick", record);
  EXPECT_EQ(status()["daemon"]["held"], false);
}

TEST_F(DaemonCrash, AnIdleDaemonWakesOnlyForItsLeaseHeartbeats) {
  const json first = add("idle", {"--every", "1h", "--", "true"});
  copy_loop(first["id"].get<std::string>(), 99, "idle");
  ASSERT_EQ(json_of({"ls"}).size(), 100u);
  const size_t daemon = start_held_daemon();  // lease 30 s: a heartbeat every 10 s
  std::this_thread::sleep_for(milliseconds(1000));
  const pid_t pid = pid_of(daemon);
  const std::int64_t switches_before = context_switches(pid);
  const std::int64_t cpu_before = cpu_ticks(pid);
  constexpr int kWindowMs = 8000;
  std::this_thread::sleep_for(milliseconds(kWindowMs));
  const std::int64_t switches = context_switches(pid) - switches_before;
  const std::int64_t cpu = cpu_ticks(pid) - cpu_before;
  // At most one heartbeat falls in the window (every 10 s); a few context
  // switches each. A daemon that polled even once a second would exceed it.
  const int heartbeats = kWindowMs / 10'000 + 1;
  EXPECT_LE(switches, 3 * heartbeats + 2) << "context switches in " << kWindowMs << " ms";
  EXPECT_LE(cpu, 3) << "clock ticks of CPU in " << kWindowMs << " ms";
  EXPECT_TRUE(runs().empty());
  EXPECT_EQ(stop_daemon(daemon), 0) << log_of(daemon);
}

}  // namespace
}  // namespace orrery
