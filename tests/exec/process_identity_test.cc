#include "exec/process_identity.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace orrery {
namespace {

TEST(ProcessIdentity, ThisProcessIsAliveWithItsStartTime) {
  const ProcessIdentity self = current_process();
  ASSERT_TRUE(self.started_at.has_value());
  SystemProcessProbe probe;
  EXPECT_TRUE(probe.is_alive(self));
  EXPECT_TRUE(probe.is_alive({self.pid, std::nullopt}));
}

TEST(ProcessIdentity, TheSamePidWithAnotherStartTimeIsNotAlive) {
  ProcessIdentity reused = current_process();
  *reused.started_at -= 3'600'000;  // an hour earlier: a different process
  EXPECT_FALSE(SystemProcessProbe().is_alive(reused));
  ProcessIdentity near = current_process();
  *near.started_at += kStartTimeToleranceMs / 2;  // within the tolerance: the same
  EXPECT_TRUE(SystemProcessProbe().is_alive(near));
}

TEST(ProcessIdentity, AnExitedProcessIsNotAlive) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  const std::optional<TimeMs> started = process_start_time(child);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_FALSE(SystemProcessProbe().is_alive({child, started}));
  EXPECT_FALSE(process_start_time(child).has_value());
  EXPECT_FALSE(SystemProcessProbe().is_alive({0, std::nullopt}));
}

TEST(ProcessIdentity, StartTimeIsRecentForThisProcess) {
  const auto started = process_start_time(getpid());
  ASSERT_TRUE(started.has_value());
  const TimeMs now = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  EXPECT_LE(*started, now + kStartTimeToleranceMs);
  EXPECT_GT(*started, now - 24 * 3'600'000);  // a test process is not a day old
}

// A process can end between the open of its /proc file and the read: the
// read fails (ESRCH), and the reader says "nothing" instead of throwing (a
// daemon checking supervisors met this once in thousands of runs).
TEST(ProcessIdentity, AProcFileWhoseProcessEndedAfterTheOpenReadsAsNothing) {
  for (const char* file : {"stat", "status", "cmdline"}) {
    SCOPED_TRACE(file);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      pause();
      _exit(0);
    }
    const std::string path = "/proc/" + std::to_string(child) + "/" + file;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::kill(child, SIGKILL), 0);
    ASSERT_EQ(waitpid(child, nullptr, 0), child);
    EXPECT_FALSE(read_open_file(fd).has_value());
    ::close(fd);
    EXPECT_FALSE(read_proc_file(path).has_value());
  }
}

TEST(ProcessIdentity, AProcFileOfALiveProcessReadsWhole) {
  const std::optional<std::string> stat = read_proc_file("/proc/self/stat");
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->rfind(std::to_string(getpid()) + " (", 0), 0u) << *stat;
  const std::optional<std::string> boot = read_proc_file("/proc/stat");
  ASSERT_TRUE(boot.has_value());
  EXPECT_NE(boot->find("\nbtime "), std::string::npos);
  EXPECT_FALSE(read_proc_file("/proc/no-such-file").has_value());
}

}  // namespace
}  // namespace orrery
