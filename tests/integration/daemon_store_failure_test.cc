// Black-box scenarios of a store that cannot be written under a running
// daemon (docs/daemon.md, "Failure behaviour"): a full disk, a quota, an
// I/O error. The test takes the daemon's file size limit (RLIMIT_FSIZE) to
// 0 with SIGXFSZ ignored, so that every write of the daemon fails (EFBIG)
// while reads go on and other processes write as usual; this works
// unprivileged and as root alike (a chmod would not stop root).
// - the daemon logs the errors and retries with its backoff; it claims
//   nothing and marks no slot as run while it cannot write;
// - heartbeats that failed until the lease ran out: when it can write
//   again the daemon takes the lease again (a new generation) and carries
//   on, and every slot ends in one terminal state, none run twice;
// - a lease another daemon took meanwhile is lost: the first daemon exits
//   4 without claiming anything;
// - a supervisor that cannot write gives up within its run lease; recovery
//   records its run `abandoned` and the slot is attempted again;
// - any file of the database (itself, its -wal, its -shm, the directory)
//   removed or replaced under the daemon stops it (75), naming the file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include "daemon_fixture.h"
#include "support/numbered.h"

namespace orrery {
namespace {

using testing::numbered;

constexpr TimeMs kSecond = 1000;
constexpr int kExitConflict = 4;

class DaemonStoreFailure : public DaemonFixture {
 protected:
  // A daemon whose writes can be made to fail: SIGXFSZ is ignored in it
  // (the disposition survives exec), so a write past the file size limit
  // fails with EFBIG instead of killing it.
  size_t start_failable_daemon(const Args& extra) {
    struct sigaction ignore {};
    struct sigaction previous {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGXFSZ, &ignore, &previous);
    const size_t daemon = start_daemon(extra);
    sigaction(SIGXFSZ, &previous, nullptr);
    EXPECT_TRUE(wait_until_held(daemon)) << log_of(daemon);
    return daemon;
  }

  // Every write of the process fails (at 0 bytes) or works again.
  static void set_writes_failing(pid_t pid, bool failing) {
    struct rlimit limit {};
    ASSERT_EQ(::prlimit(pid, RLIMIT_FSIZE, nullptr, &limit), 0);
    limit.rlim_cur = failing ? 0 : limit.rlim_max;
    ASSERT_EQ(::prlimit(pid, RLIMIT_FSIZE, &limit, nullptr), 0);
  }

  size_t succeeded(const std::string& name) const {
    size_t count = 0;
    for (const json& run : runs(name)) count += run["status"] == "succeeded";
    return count;
  }
};

TEST_F(DaemonStoreFailure, ADaemonThatCannotWriteClaimsNothingAndCarriesOnWhenItCanAgain) {
  const std::string record = tmp_ + "/tick";
  add("tick", {"--every", "1s", "--shell", record_to(record)});
  const size_t daemon = start_failable_daemon({"--lease-ttl", "3s"});
  ASSERT_TRUE(eventually([&] { return succeeded("tick") >= 1; })) << log_of(daemon);

  set_writes_failing(pid_of(daemon), true);
  // (Its log is a file too: the lines of the outage are lost.)
  const size_t rows = runs("tick").size();
  const size_t ran = executions(record).size();
  // Nothing renews the lease: it runs out after its ttl (3 s).
  ASSERT_TRUE(
      eventually([&] { return !status()["daemon"]["held"].get<bool>(); }, milliseconds(6000)))
      << log_of(daemon);
  EXPECT_FALSE(exited(daemon)) << log_of(daemon);
  // No slot claimed; a run started just before may still have executed.
  EXPECT_EQ(runs("tick").size(), rows);
  EXPECT_LE(executions(record).size(), ran + 1);

  set_writes_failing(pid_of(daemon), false);
  ASSERT_TRUE(eventually([&] {
    return contains(log_of(daemon), "taken again after store errors");
  })) << log_of(daemon);
  EXPECT_TRUE(eventually([&] { return succeeded("tick") >= rows + 1; })) << log_of(daemon);
  const json lease = status()["daemon"];
  EXPECT_EQ(lease["pid"], pid_of(daemon));
  EXPECT_TRUE(lease["held"].get<bool>());
  EXPECT_GE(lease["generation"].get<int>(), 2);
  EXPECT_EQ(stop_daemon(daemon), 0) << log_of(daemon);
  ASSERT_TRUE(wait_until_settled("tick"));
  expect_each_slot_once("tick", record);
}

TEST_F(DaemonStoreFailure, ALeaseAnotherDaemonTookWhileTheStoreFailedIsLost) {
  const std::string record = tmp_ + "/tick";
  add("tick", {"--every", "1s", "--shell", record_to(record)});
  const size_t first = start_failable_daemon({"--lease-ttl", "3s"});
  ASSERT_TRUE(eventually([&] { return succeeded("tick") >= 1; })) << log_of(first);

  set_writes_failing(pid_of(first), true);
  ASSERT_TRUE(
      eventually([&] { return !status()["daemon"]["held"].get<bool>(); }, milliseconds(6000)))
      << log_of(first);
  const size_t second = start_held_daemon({"--lease-ttl", "3s"});
  set_writes_failing(pid_of(first), false);
  // Exit 4 is the daemon's "lease lost" (docs/daemon.md). Its log line may
  // be missing: a heartbeat that finds the lease gone writes nothing to the
  // database, so the first daemon can learn of the loss and exit while its
  // writes still fail, and its log is a file under the same limit.
  EXPECT_EQ(wait_daemon_exit(first), kExitConflict) << log_of(first);
  EXPECT_FALSE(contains(log_of(first), "taken again")) << log_of(first);
  EXPECT_EQ(status()["daemon"]["pid"], pid_of(second));
  const size_t rows = runs("tick").size();
  EXPECT_TRUE(eventually([&] { return succeeded("tick") >= rows + 1; })) << log_of(second);
  EXPECT_EQ(stop_daemon(second), 0) << log_of(second);
  ASSERT_TRUE(wait_until_settled("tick"));
  expect_each_slot_once("tick", record);
}

// A supervisor that cannot write (its run's end, nor the kept outcome)
// gives up within its run lease and exits; recovery records the run
// `abandoned`, and the slot is attempted again.
TEST_F(DaemonStoreFailure, ASupervisorThatCannotWriteLeavesItsRunToRecovery) {
  const std::string record = tmp_ + "/once";
  add("once", {"--at", "+1s", "--lease", "3s", "--max-attempts", "2", "--retry-delay", "1m",
               "--shell", record_to(record) + "; sleep 1"});
  const size_t daemon = start_failable_daemon({"--lease-ttl", "3s"});
  json started;
  ASSERT_TRUE(eventually([&] {
    const json all = runs("once");
    // Its target started (recorded): only the run's end is left to write.
    if (all.empty() || !all[0]["supervisor_pid"].is_number_integer() ||
        !all[0]["pid"].is_number_integer()) {
      return false;
    }
    started = all[0];
    return true;
  })) << log_of(daemon);
  set_writes_failing(started["supervisor_pid"].get<pid_t>(), true);

  // Recovery records it abandoned (its supervisor gone or its lease run
  // out, whichever it saw first) and re-attempts it at once, for free.
  const std::string id = started["id"].get<std::string>();
  ASSERT_TRUE(eventually([&] { return contains(log_of(daemon), "recovered run " + id); },
                         milliseconds(8000)))
      << log_of(daemon);
  EXPECT_TRUE(contains(log_of(daemon), ": abandoned (")) << log_of(daemon);
  // Attempted again, this time recorded.
  ASSERT_TRUE(eventually([&] { return loop("once")["status"] == "completed"; }))
      << runs("once").dump(1) << log_of(daemon);
  const json all = runs("once");
  ASSERT_EQ(all.size(), 1u) << all.dump(1);
  EXPECT_EQ(all[0]["status"], "succeeded") << all.dump(1);
  EXPECT_EQ(all[0]["attempt"], 1) << all.dump(1);  // a free re-attempt
  EXPECT_EQ(executions(record).size(), 2u);
  EXPECT_EQ(stop_daemon(daemon), 0) << log_of(daemon);
}

// Each file the SQLite database lives in (the database, its -wal, its
// -shm, the directory), removed or replaced under a running daemon (another
// inode at its path): the daemon stops (exit 75) naming the file instead of
// going on alone with files no command or supervisor sees; a daemon started
// then uses the files now there.
TEST_F(DaemonStoreFailure, AnyFileOfTheDatabaseRemovedOrReplacedStopsTheDaemonNamingIt) {
  const std::string database = home_ + "/orrery.db";
  struct File {
    std::filesystem::path path;
    std::string what;
  };
  const File files[] = {
      {database, "the database file"},
      {database + "-wal", "the database's write-ahead log"},
      {database + "-shm", "the database's shared-memory index"},
      {home_, "the database's directory"},
  };
  int loops = 0;
  for (const File& file : files) {
    for (const bool replace : {false, true}) {
      SCOPED_TRACE(file.path.string() + (replace ? " replaced" : " removed"));
      add(numbered("loop", loops++), {"--every", "1h", "--", "true"});
      const size_t daemon = start_held_daemon({"--lease-ttl", "3s"});
      const std::string moved = tmp_ + "/moved";
      std::filesystem::remove_all(moved);
      std::filesystem::rename(file.path, moved);
      if (replace) {
        // A copy at the path: the same bytes, another inode (a directory:
        // its regular files, not the daemon's socket).
        if (std::filesystem::is_directory(moved)) {
          std::filesystem::create_directory(file.path);
          for (const auto& entry : std::filesystem::recursive_directory_iterator(moved)) {
            const auto target = file.path / std::filesystem::relative(entry.path(), moved);
            if (entry.is_directory()) std::filesystem::create_directories(target);
            if (entry.is_regular_file()) std::filesystem::copy_file(entry.path(), target);
          }
        } else {
          std::filesystem::copy_file(moved, file.path);
        }
      } else if (file.path == home_) {
        std::filesystem::rename(moved, tmp_ + "/gone");
      }
      EXPECT_EQ(wait_daemon_exit(daemon, milliseconds(5000)), 75) << log_of(daemon);
      EXPECT_TRUE(contains(log_of(daemon), file.what + " " + file.path.string() + " was " +
                                               (replace ? "replaced" : "removed")))
          << log_of(daemon);
      // Put back as it was for the next case.
      if (!replace) {
        if (file.path == home_) {
          std::filesystem::rename(tmp_ + "/gone", home_);
        } else if (file.path == database) {
          std::filesystem::rename(moved, file.path);
        }
      }
    }
  }
  const size_t next = start_held_daemon({"--lease-ttl", "3s"});
  EXPECT_EQ(stop_daemon(next), 0) << log_of(next);
  EXPECT_FALSE(json_of({"ls"}).empty());
}

}  // namespace
}  // namespace orrery
