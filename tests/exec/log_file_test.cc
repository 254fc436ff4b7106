#include "exec/log_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/fault_env.h"
#include "support/temp_dir.h"
#include "support/test_files.h"

namespace orrery {
namespace {

using testing::read_file;

bool exists(const std::string& path) { return std::filesystem::exists(path); }

std::string marker(std::int64_t dropped) {
  return "=== stdout.log reached its limit: earlier output is in stdout.log.1; " +
         std::to_string(dropped) + " bytes before that were dropped ===\n";
}

// The marker after output that did not end its line.
std::string after_partial_line(std::int64_t dropped) { return "\n" + marker(dropped); }

class LogFileTest : public ::testing::Test {
 protected:
  std::string path() const { return dir_.file("stdout.log"); }
  testing::TempDir dir_;
  testing::FaultEnv env_;
};

TEST_F(LogFileTest, BelowHalfTheLimitEverythingStaysInOneFile) {
  for (const std::int64_t limit : {20, 64, 1000}) {
    std::filesystem::remove(path());
    LogFile log(env_, path(), limit);
    ASSERT_TRUE(log.open().ok());
    const std::string text(size_t(limit / 2), 'x');  // exactly half: no rotation
    ASSERT_TRUE(log.append(text).ok());
    EXPECT_EQ(read_file(path()), text) << limit;
    EXPECT_FALSE(exists(path() + ".1")) << limit;
  }
}

TEST_F(LogFileTest, PastHalfTheLimitTheFileRotatesOnceWithAMarker) {
  LogFile log(env_, path(), 20);  // 10 bytes per file
  ASSERT_TRUE(log.open().ok());
  ASSERT_TRUE(log.append("0123456789abc").ok());
  EXPECT_EQ(read_file(path() + ".1"), "0123456789");
  EXPECT_EQ(read_file(path()), after_partial_line(0) + "abc");
  EXPECT_EQ(log.dropped_bytes(), 0);
}

TEST_F(LogFileTest, TheOldestOutputIsDroppedAndTheMarkerCountsIt) {
  LogFile log(env_, path(), 8);  // 4 bytes per file
  ASSERT_TRUE(log.open().ok());
  // In writes of several sizes: 4 + 4 + 4 + 2 bytes land in four files.
  for (const char* part : {"ab", "cdef", "g", "hijklmn"}) ASSERT_TRUE(log.append(part).ok());
  // "abcd" and "efgh" were dropped (8 bytes), "ijkl" is in .1, "mn" current.
  EXPECT_EQ(read_file(path() + ".1"), after_partial_line(4) + "ijkl");
  EXPECT_EQ(read_file(path()), after_partial_line(8) + "mn");
  EXPECT_EQ(log.dropped_bytes(), 8);
}

TEST_F(LogFileTest, OneLargeWriteKeepsOnlyItsNewestPart) {
  LogFile log(env_, path(), 100);  // 50 per file
  ASSERT_TRUE(log.open().ok());
  std::string text;
  for (int i = 0; i < 1000; ++i) text += char('a' + i % 26);
  ASSERT_TRUE(log.append(text).ok());
  // 1000 = 19 full files of 50 + 50 in the current: 18 files dropped.
  EXPECT_EQ(log.dropped_bytes(), 900);
  EXPECT_EQ(read_file(path()), after_partial_line(900) + text.substr(950));
  EXPECT_EQ(read_file(path() + ".1"), after_partial_line(850) + text.substr(900, 50));
}

TEST_F(LogFileTest, AReopenedLogCountsWhatItAlreadyHolds) {
  {
    LogFile first(env_, path(), 20);
    ASSERT_TRUE(first.open().ok());
    EXPECT_FALSE(first.has_output());
    ASSERT_TRUE(first.append("12345678").ok());
  }
  LogFile second(env_, path(), 20);
  ASSERT_TRUE(second.open().ok());
  EXPECT_TRUE(second.has_output());
  ASSERT_TRUE(second.append("abcd").ok());  // 8 + 2 fill the file, "cd" goes on
  EXPECT_EQ(read_file(path() + ".1"), "12345678ab");
  EXPECT_EQ(read_file(path()), after_partial_line(0) + "cd");
}

TEST_F(LogFileTest, AttemptMarkersAreLinesOfTheirOwn) {
  LogFile log(env_, path(), 1 << 20);
  ASSERT_TRUE(log.open().ok());
  ASSERT_TRUE(log.append("first\n").ok());
  ASSERT_TRUE(log.mark_attempt(2, 1'780'000'000'000).ok());
  ASSERT_TRUE(log.append("second\n").ok());
  EXPECT_EQ(read_file(path()),
            "first\n=== attempt 2 started 2026-05-28T20:26:40.000Z ===\nsecond\n");
}

TEST_F(LogFileTest, ShortWritesAreContinued) {
  env_.max_write = 3;
  LogFile log(env_, path(), 1 << 20);
  ASSERT_TRUE(log.open().ok());
  ASSERT_TRUE(log.append("a line longer than three bytes\n").ok());
  EXPECT_EQ(read_file(path()), "a line longer than three bytes\n");
  EXPECT_GE(env_.write_calls, 11);
}

TEST_F(LogFileTest, AFullDiskIsAnErrorNamingTheFileAndTheReason) {
  for (const int error : {ENOSPC, EIO, EDQUOT}) {
    std::filesystem::remove(path());
    testing::FaultEnv env;
    env.fail_path = "stdout.log";
    env.bytes_before_failure = 5;
    env.write_error = error;
    LogFile log(env, path(), 1 << 20);
    ASSERT_TRUE(log.open().ok());
    const Status written = log.append("0123456789");
    ASSERT_FALSE(written.ok()) << error;
    EXPECT_EQ(written.error().message, "cannot write to " + path() + ": " + std::strerror(error));
    EXPECT_EQ(read_file(path()), "01234");  // what fitted, nothing invented
  }
}

TEST_F(LogFileTest, AFailedRotationIsAnError) {
  env_.rename_error = EACCES;
  LogFile log(env_, path(), 4);
  ASSERT_TRUE(log.open().ok());
  const Status written = log.append("0123");
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find("cannot rotate " + path()), std::string::npos);
}

// A marker never glues onto a partial line: it starts with a newline when
// the last byte written (to this file, or before a rotation to .1) was not
// one.
TEST_F(LogFileTest, AMarkerAlwaysStartsALineOfItsOwn) {
  const std::string attempt = "=== attempt 2 started " + format_time(0) + " ===\n";
  for (const std::string before : {"", "whole line\n", "partial", "a\nb"}) {
    std::filesystem::remove(path());
    {
      LogFile log(env_, path(), 1000);
      ASSERT_TRUE(log.open().ok());
      ASSERT_TRUE(log.append(before).ok());
      ASSERT_TRUE(log.mark_attempt(2, 0).ok());
    }
    const bool mid_line = !before.empty() && before.back() != '\n';
    EXPECT_EQ(read_file(path()), before + (mid_line ? "\n" : "") + attempt) << before;
    {  // a supervisor that opens the file later sees the same
      std::filesystem::remove(path());
      std::ofstream(path(), std::ios::binary) << before;
      LogFile log(env_, path(), 1000);
      ASSERT_TRUE(log.open().ok());
      ASSERT_TRUE(log.mark_attempt(2, 0).ok());
    }
    EXPECT_EQ(read_file(path()), before + (mid_line ? "\n" : "") + attempt) << before;
  }
  for (const std::string full : {"012345678\n", "0123456789"}) {  // 10 bytes per file
    std::filesystem::remove(path());
    std::filesystem::remove(path() + ".1");
    LogFile log(env_, path(), 20);
    ASSERT_TRUE(log.open().ok());
    ASSERT_TRUE(log.append(full + "abc").ok());
    const bool mid_line = full.back() != '\n';
    EXPECT_EQ(read_file(path() + ".1") + read_file(path()),
              full + (mid_line ? "\n" : "") + marker(0) + "abc")
        << full;
  }
}

}  // namespace
}  // namespace orrery
