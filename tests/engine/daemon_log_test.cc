#include "engine/daemon_log.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <sstream>

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

}  // namespace
}  // namespace orrery
