// Black-box scenarios of many processes at once on one data directory
// (docs/daemon.md, "The lease"; docs/storage.md):
// - 8 daemons started together on a data directory that does not exist yet,
//   or exists empty: exactly one holds the lease, the others exit 4 naming
//   it, and what they created is private (directory 0700, files 0600);
// - a daemon started while another process holds the write lock longer than
//   the daemon's per-write wait retries, logging it, and starts once the lock
//   is released; held past the busy timeout, it exits 75;
// - 8 processes adding, editing and triggering loops while a daemon runs:
//   every command succeeds and every loop and run is there.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "daemon_fixture.h"
#include "support/numbered.h"

namespace orrery {
namespace {

using testing::numbered;

constexpr int kExitConflict = 4;
constexpr int kExitUnavailable = 75;
constexpr int kProcesses = 8;

class DaemonConcurrency : public DaemonFixture {
 protected:
  static unsigned mode_of(const std::string& path) {
    struct stat info {};
    EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
    return info.st_mode & 0777;
  }

  // Another process's write transaction on the database, until released.
  class WriteLock {
   public:
    explicit WriteLock(const std::string& path) {
      EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK);
      EXPECT_EQ(sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
    }
    ~WriteLock() { release(); }
    void release() {
      if (db_ == nullptr) return;
      sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
      sqlite3_close(db_);
      db_ = nullptr;
    }

   private:
    sqlite3* db_ = nullptr;
  };

  // Starts kProcesses daemons at once; exactly one holds the lease.
  void expect_one_holder_of_many() {
    std::vector<size_t> daemons;
    for (int i = 0; i < kProcesses; ++i) daemons.push_back(start_daemon({"--lease-ttl", "3s"}));
    size_t holder = daemons.size();
    ASSERT_TRUE(eventually([&] {
      const json state = status();
      if (!state.is_object() || !state["daemon"].is_object() || !state["daemon"]["held"]) {
        return false;
      }
      for (size_t index : daemons) {
        if (state["daemon"]["pid"] == pid_of(index)) holder = index;
      }
      return holder != daemons.size();
    }));
    for (size_t index : daemons) {
      if (index == holder) continue;
      EXPECT_EQ(wait_daemon_exit(index), kExitConflict) << log_of(index);
      EXPECT_TRUE(contains(log_of(index),
                           "another daemon holds the lease: pid " + std::to_string(pid_of(holder))))
          << log_of(index);
    }
    EXPECT_FALSE(exited(holder)) << log_of(holder);
    // The database is whole and usable by the holder and the commands.
    add("after", {"--at", "+1s", "--", "true"});
    EXPECT_TRUE(eventually([&] { return loop("after")["status"] == "completed"; }))
        << log_of(holder);
    EXPECT_EQ(stop_daemon(holder), 0) << log_of(holder);
    for (const auto& entry : std::filesystem::recursive_directory_iterator(home_)) {
      const unsigned expected = entry.is_directory() ? 0700u : 0600u;
      if (!entry.is_socket()) {
        EXPECT_EQ(mode_of(entry.path()), expected) << entry.path();
      }
    }
  }
};

TEST_F(DaemonConcurrency, ManyDaemonsOnANewDataDirectoryLeaveOneHolder) {
  expect_one_holder_of_many();
  EXPECT_EQ(mode_of(home_), 0700u);
}

TEST_F(DaemonConcurrency, ManyDaemonsOnAnEmptyDataDirectoryLeaveOneHolder) {
  ASSERT_TRUE(std::filesystem::create_directory(home_));
  ::chmod(home_.c_str(), 0700);
  expect_one_holder_of_many();
}

TEST_F(DaemonConcurrency, ADaemonStartedUnderAnotherProcesssWriteLockStartsWhenItIsReleased) {
  add("existing", {"--every", "1h", "--", "true"});
  WriteLock lock(home_ + "/orrery.db");
  // Its per-write wait is 500 ms (ttl/6); its start waits up to a minute.
  const size_t daemon = start_daemon({"--lease-ttl", "3s"}, {{"ORRERY_BUSY_TIMEOUT_MS", "60000"}});
  ASSERT_TRUE(eventually([&] { return contains(log_of(daemon), "; retrying in "); }))
      << log_of(daemon);
  EXPECT_TRUE(contains(log_of(daemon), "database busy")) << log_of(daemon);
  EXPECT_FALSE(exited(daemon)) << log_of(daemon);
  lock.release();
  EXPECT_TRUE(wait_until_held(daemon)) << log_of(daemon);
  EXPECT_EQ(stop_daemon(daemon), 0) << log_of(daemon);
}

TEST_F(DaemonConcurrency, ADaemonWhoseDatabaseStaysLockedPastTheBusyTimeoutExits75) {
  add("existing", {"--every", "1h", "--", "true"});
  WriteLock lock(home_ + "/orrery.db");
  const size_t daemon = start_daemon({"--lease-ttl", "3s"}, {{"ORRERY_BUSY_TIMEOUT_MS", "1500"}});
  EXPECT_EQ(wait_daemon_exit(daemon), kExitUnavailable) << log_of(daemon);
  const std::string log = log_of(daemon);
  EXPECT_TRUE(contains(log, "; retrying in ")) << log;
  EXPECT_TRUE(contains(log, "orrery: database busy: another process holds the write lock on " +
                                home_ + "/orrery.db"))
      << log;
}

TEST_F(DaemonConcurrency, CommandsRunningTogetherUnderADaemonAllTakeEffect) {
  add("shared", {"--every", "1h", "--", "true"});
  const size_t daemon = start_held_daemon({"--lease-ttl", "3s"});
  std::vector<pid_t> children;
  for (int i = 0; i < kProcesses; ++i) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      const std::string name = numbered("l", i);
      bool ok = run({"add", name, "--every", "1h", "--", "true"}).exit_code == 0;
      ok = run({"edit", name, "--description", "edited " + name}).exit_code == 0 && ok;
      ok = run({"edit", "shared", "--description", "by " + name}).exit_code == 0 && ok;
      ok = run({"trigger", name}).exit_code == 0 && ok;
      ::_exit(ok ? 0 : 1);
    }
    children.push_back(child);
  }
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  for (int i = 0; i < kProcesses; ++i) {
    const std::string name = numbered("l", i);
    EXPECT_EQ(loop(name)["description"], "edited " + name);
    const json all = runs(name);
    ASSERT_EQ(all.size(), 1u) << all.dump(1);
    EXPECT_EQ(all[0]["status"], "succeeded") << all.dump(1);
  }
  EXPECT_EQ(loop("shared")["description"].get<std::string>().rfind("by l", 0), 0u);
  EXPECT_EQ(stop_daemon(daemon), 0) << log_of(daemon);
}

}  // namespace
}  // namespace orrery
