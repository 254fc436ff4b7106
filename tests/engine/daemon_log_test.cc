#include "engine/daemon_log.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/temp_dir.h"

namespace orrery {
namespace {

constexpr TimeMs kAt = 1'796'083'200'000;  // 2026-12-01T00:00:00.000Z

std::string read_file(const std::string& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(DaemonLog, OneLinePerEventWithItsInstant) {
  const testing::TempDir dir;
  auto log = DaemonLog::open_file(dir.file("daemon.log"));
  ASSERT_TRUE(log.ok()) << log.error().message;
  log->write(kAt, "lease taken");
  log->write(kAt + 1'234, "run R of loop nightly started");
  EXPECT_EQ(read_file(dir.file("daemon.log")),
            "2026-12-01T00:00:00.000Z lease taken\n"
            "2026-12-01T00:00:01.234Z run R of loop nightly started\n");
}

TEST(DaemonLog, StoredTextCannotBreakALine) {
  const testing::TempDir dir;
  auto log = DaemonLog::open_file(dir.file("daemon.log"));
  ASSERT_TRUE(log.ok());
  for (const std::string& text : {std::string("a\nb"), std::string("a\rb"),
                                  std::string("a\x1b[31mb"), std::string("a\0b", 3)}) {
    log->write(kAt, text);
  }
  const std::string written = read_file(dir.file("daemon.log"));
  int newlines = 0;
  for (char c : written) newlines += c == '\n';
  EXPECT_EQ(newlines, 4) << written;
  EXPECT_EQ(written.find('\x1b'), std::string::npos);
}

TEST(DaemonLog, FileIsPrivateAndAppendedTo) {
  const testing::TempDir dir;
  { std::ofstream(dir.file("daemon.log")) << "earlier\n"; }
  auto log = DaemonLog::open_file(dir.file("new.log"));
  ASSERT_TRUE(log.ok());
  struct stat info {};
  ASSERT_EQ(stat(dir.file("new.log").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  auto appended = DaemonLog::open_file(dir.file("daemon.log"));
  ASSERT_TRUE(appended.ok());
  appended->write(kAt, "later");
  EXPECT_EQ(read_file(dir.file("daemon.log")), "earlier\n2026-12-01T00:00:00.000Z later\n");
}

TEST(DaemonLog, ReopenFollowsARotation) {
  const testing::TempDir dir;
  auto log = DaemonLog::open_file(dir.file("daemon.log"));
  ASSERT_TRUE(log.ok());
  log->write(kAt, "before");
  ASSERT_EQ(std::rename(dir.file("daemon.log").c_str(), dir.file("daemon.log.1").c_str()), 0);
  log->write(kAt, "still the old file");
  ASSERT_TRUE(log->reopen().ok());
  log->write(kAt, "after");
  EXPECT_EQ(read_file(dir.file("daemon.log.1")),
            "2026-12-01T00:00:00.000Z before\n2026-12-01T00:00:00.000Z still the old file\n");
  EXPECT_EQ(read_file(dir.file("daemon.log")), "2026-12-01T00:00:00.000Z after\n");
}

TEST(DaemonLog, AFileThatCannotBeOpenedIsAUsageErrorNamingIt) {
  const testing::TempDir dir;
  for (const std::string& path : {dir.file("missing/daemon.log"), dir.path()}) {
    auto log = DaemonLog::open_file(path);
    ASSERT_FALSE(log.ok()) << path;
    EXPECT_EQ(log.error().code, ErrorCode::kUsage);
    EXPECT_NE(log.error().message.find("--log " + path), std::string::npos);
  }
}

TEST(DaemonLog, StderrNeedsNoReopen) {
  DaemonLog log;
  EXPECT_TRUE(log.reopen().ok());
}

// A pipe whose reader does not read: the daemon's lines to stderr are
// dropped after a short wait instead of blocking it, and a line is written
// again once the reader has taken the backlog. Run in a child, so that a
// log that blocks fails the test instead of hanging it.
TEST(DaemonLog, AStuckReaderCostsLinesNotTheDaemon) {
  int log_pipe[2], done[2], go[2];
  ASSERT_EQ(pipe2(log_pipe, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(done, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(go, O_CLOEXEC), 0);
  // Fill the pipe, then make it blocking again, as a stderr pipe is.
  ASSERT_EQ(fcntl(log_pipe[1], F_SETFL, O_NONBLOCK), 0);
  const std::string block(4096, 'x');
  while (write(log_pipe[1], block.data(), block.size()) > 0) {
  }
  ASSERT_EQ(fcntl(log_pipe[1], F_SETFL, 0), 0);

  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    dup2(log_pipe[1], STDERR_FILENO);
    DaemonLog log;  // to stderr
    for (int i = 0; i < 200; ++i) log.write(kAt, "a line nobody reads");
    char byte = 0;
    if (write(done[1], &byte, 1) != 1 || read(go[0], &byte, 1) != 1) _exit(3);
    log.write(kAt, "taken again");
    _exit(0);
  }
  pollfd finished{done[0], POLLIN, 0};
  if (poll(&finished, 1, 5000) != 1) {
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    FAIL() << "the log blocked on a pipe nobody reads";
  }
  // The reader takes the backlog; the next line arrives whole.
  ASSERT_EQ(fcntl(log_pipe[0], F_SETFL, O_NONBLOCK), 0);
  char buffer[4096];
  while (read(log_pipe[0], buffer, sizeof buffer) > 0) {
  }
  const char byte = 0;
  ASSERT_EQ(write(go[1], &byte, 1), 1);
  int status = -1;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  close(log_pipe[1]);
  ASSERT_EQ(fcntl(log_pipe[0], F_SETFL, 0), 0);
  std::string rest;
  for (ssize_t got; (got = read(log_pipe[0], buffer, sizeof buffer)) > 0;) {
    rest.append(buffer, size_t(got));
  }
  EXPECT_EQ(rest, "2026-12-01T00:00:00.000Z taken again\n");
  for (int fd : {log_pipe[0], done[0], done[1], go[0], go[1]}) close(fd);
}

}  // namespace
}  // namespace orrery
