// Black-box scenarios of many processes at once on one data directory
// (docs/daemon.md, "The lease"; docs/storage.md):
// - 8 daemons started together on a data directory that does not exist yet,
//   or exists empty: exactly one holds the lease, the others exit 4 naming
//   it, and what they created is private (directory 0700, files 0600);
// - 8 processes adding, editing and triggering loops while a daemon runs:
//   every command succeeds and every loop and run is there.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "daemon_fixture.h"
#include "support/numbered.h"

namespace orrery {
namespace {

using testing::numbered;

constexpr int kExitConflict = 4;
constexpr int kProcesses = 8;

class DaemonConcurrency : public DaemonFixture {
 protected:
  static unsigned mode_of(const std::string& path) {
    struct stat info {};
    EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
    return info.st_mode & 0777;
  }

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
