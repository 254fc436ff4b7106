// Black-box scenarios of signals at odd moments (docs/daemon.md, "Signals"),
// beyond daemon_crash_test.cc:
// - SIGTERM at any moment of the start: the daemon either dies before it
//   took anything (the default action, before its handlers exist) or exits
//   0 having released the lease; either way nothing is left held and the
//   next daemon starts at once;
// - a storm of SIGHUPs: the log is reopened, the daemon keeps running its
//   loops and stops cleanly.
#include <gtest/gtest.h>
#include <signal.h>

#include "daemon_fixture.h"

namespace orrery {
namespace {

class DaemonSignals : public DaemonFixture {};

TEST_F(DaemonSignals, SigtermDuringTheStartLeavesNothingHeld) {
  add("tick", {"--every", "1h", "--", "true"});
  for (const int delay_ms : {0, 2, 5, 10, 20, 40}) {
    SCOPED_TRACE(delay_ms);
    const size_t daemon = start_daemon({"--lease-ttl", "3s"});
    // A moment into the start (time passing is the point, not a wait).
    std::this_thread::sleep_for(milliseconds(delay_ms));
    const int code = stop_daemon(daemon, SIGTERM);
    EXPECT_TRUE(code == 0 || code == 128 + SIGTERM) << code << "\n" << log_of(daemon);
    const json lease = status()["daemon"];
    EXPECT_TRUE(lease.is_null() || !lease.value("held", false)) << lease.dump() << log_of(daemon);
    EXPECT_FALSE(std::filesystem::exists(home_ + "/daemon.sock")) << log_of(daemon);
  }
  const size_t next = start_held_daemon({"--lease-ttl", "3s"});
  EXPECT_EQ(stop_daemon(next), 0) << log_of(next);
}

TEST_F(DaemonSignals, AStormOfSighupsReopensTheLogAndChangesNothingElse) {
  const std::string record = tmp_ + "/tick";
  add("tick", {"--every", "1s", "--shell", record_to(record)});
  const std::string log = tmp_ + "/daemon-file.log";
  const size_t daemon = start_held_daemon({"--lease-ttl", "3s", "--log", log});
  for (int i = 0; i < 2000; ++i) ASSERT_EQ(::kill(pid_of(daemon), SIGHUP), 0);
  ASSERT_TRUE(eventually([&] { return contains(testing::read_file(log), "log reopened"); }));
  const size_t ran = executions(record).size();
  EXPECT_TRUE(eventually([&] { return executions(record).size() >= ran + 2; }))
      << testing::read_file(log);
  EXPECT_FALSE(exited(daemon));
  EXPECT_EQ(stop_daemon(daemon), 0) << testing::read_file(log);
  EXPECT_TRUE(contains(testing::read_file(log), "lease released"));
  ASSERT_TRUE(wait_until_settled("tick"));
  for (const json& run : runs("tick")) {
    EXPECT_TRUE(run["status"] == "succeeded" || run["status"] == "skipped") << run.dump();
  }
}

}  // namespace
}  // namespace orrery
