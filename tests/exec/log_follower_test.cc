#include "exec/log_follower.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <ostream>
#include <sstream>
#include <thread>

#include "exec/env.h"
#include "exec/log_file.h"
#include "store/home_layout.h"
#include "support/temp_dir.h"

namespace orrery {
namespace {

using namespace std::chrono_literals;

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// Output written by the follower's thread that the test waits on: each
// write wakes the waiter, so the test waits for what it expects to see.
class SharedOutput : public std::streambuf {
 public:
  // Waits until the output holds `text`; false when it does not come (a
  // guard against a hung test, not a synchronisation).
  bool wait_for(const std::string& text) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, 20s, [&] { return text_.find(text) != std::string::npos; });
  }
  std::string text() {
    std::lock_guard lock(mutex_);
    return text_;
  }

 protected:
  std::streamsize xsputn(const char* data, std::streamsize size) override {
    std::lock_guard lock(mutex_);
    text_.append(data, size_t(size));
    changed_.notify_all();
    return size;
  }
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      const char byte = traits_type::to_char_type(c);
      xsputn(&byte, 1);
    }
    return traits_type::not_eof(c);
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::string text_;
};

// Only events wake the follower: its stop condition is asked after each one
// and otherwise once an hour.
constexpr FollowPace kOnEvents{0ms, 1h};

class LogFollowerTest : public ::testing::Test {
 protected:
  std::string path() const { return dir_.file("stdout.log"); }

  // Follows path() on a thread until stop_ is set (and an event comes).
  void start_following() {
    follower_ = std::thread([this] {
      followed_ = follow_log(
          path(), out_stream_, [this]() -> Result<bool> { return stop_.load(); }, kOnEvents);
    });
  }
  // Stops the follower as the end of a run does: the flag, then a file of
  // the directory closed after writing (the supervisor's exit).
  void stop_following() {
    stop_ = true;
    const int fd = ::open(dir_.file("supervisor.log").c_str(), O_WRONLY | O_CREAT, 0600);
    ASSERT_GE(fd, 0);
    ::close(fd);
    follower_.join();
  }

  testing::TempDir dir_;
  SharedOutput out_;
  std::ostream out_stream_{&out_};
  std::atomic<bool> stop_{false};
  std::thread follower_;
  Status followed_ = Ok{};
};

TEST_F(LogFollowerTest, ReadLogReadsTheRotatedPartFirst) {
  EXPECT_EQ(read_log(path()), "");
  write_file(path(), "new\n");
  EXPECT_EQ(read_log(path()), "new\n");
  write_file(RunDirectory::rotated_log(path()), "old\n");
  EXPECT_EQ(read_log(path()), "old\nnew\n");
}

TEST_F(LogFollowerTest, AFollowerReadsAcrossARotation) {
  LogFile log(system_env(), path(), 20);  // 10 bytes per file
  ASSERT_TRUE(log.open().ok());
  ASSERT_TRUE(log.append("0123").ok());
  std::ostringstream out;
  LogFollower follower(path(), out);
  follower.start();
  follower.copy_new();
  EXPECT_EQ(out.str(), "0123");
  ASSERT_TRUE(log.append("456789abc").ok());  // rotates after "9"
  follower.copy_new();
  EXPECT_EQ(out.str(), read_log(path()));
  EXPECT_NE(out.str().find("abc"), std::string::npos);
}

TEST_F(LogFollowerTest, StartPrintsTheRotatedPartOnce) {
  write_file(RunDirectory::rotated_log(path()), "old\n");
  write_file(path(), "new\n");
  std::ostringstream out;
  LogFollower follower(path(), out);
  follower.start();
  follower.copy_new();
  follower.copy_new();
  EXPECT_EQ(out.str(), "old\nnew\n");
}

TEST_F(LogFollowerTest, FollowingPrintsAppendsAsTheyAreWritten) {
  LogFile log(system_env(), path(), 1 << 20);
  ASSERT_TRUE(log.open().ok());
  start_following();
  ASSERT_TRUE(log.append("one\n").ok());
  ASSERT_TRUE(out_.wait_for("one\n"));
  ASSERT_TRUE(log.append("two\n").ok());
  ASSERT_TRUE(out_.wait_for("one\ntwo\n"));
  stop_following();
  EXPECT_TRUE(followed_.ok());
  EXPECT_EQ(out_.text(), "one\ntwo\n");
}

TEST_F(LogFollowerTest, FollowingLosesNothingAcrossARotation) {
  LogFile log(system_env(), path(), 20);  // 10 bytes per file
  ASSERT_TRUE(log.open().ok());
  start_following();
  ASSERT_TRUE(log.append("0123456789").ok());
  ASSERT_TRUE(out_.wait_for("0123456789"));
  ASSERT_TRUE(log.append("abc").ok());  // a new file: marker, then "abc"
  ASSERT_TRUE(out_.wait_for("abc"));
  stop_following();
  EXPECT_EQ(out_.text(), read_log(path()));
}

TEST_F(LogFollowerTest, AFileThatAppearsLaterIsFollowed) {
  start_following();
  LogFile log(system_env(), path(), 1 << 20);
  ASSERT_TRUE(log.open().ok());
  ASSERT_TRUE(log.append("late\n").ok());
  ASSERT_TRUE(out_.wait_for("late\n"));
  stop_following();
  EXPECT_EQ(out_.text(), "late\n");
}

TEST_F(LogFollowerTest, FollowingStopsWhenTheRunEndsAndPrintsTheRest) {
  LogFile log(system_env(), path(), 1 << 20);
  ASSERT_TRUE(log.open().ok());
  ASSERT_TRUE(log.append("before\n").ok());
  start_following();
  ASSERT_TRUE(out_.wait_for("before\n"));
  stop_ = true;
  ASSERT_TRUE(log.append("last words\n").ok());  // the write wakes it: asked, it stops
  follower_.join();
  EXPECT_TRUE(followed_.ok());
  EXPECT_EQ(out_.text(), "before\nlast words\n");
}

TEST_F(LogFollowerTest, WithoutEventsTheConditionIsStillAsked) {
  write_file(path(), "quiet\n");
  int asked = 0;
  std::ostringstream out;
  const Status followed = follow_log(
      path(), out, [&]() -> Result<bool> { return ++asked == 3; }, FollowPace{0ms, 1ms});
  EXPECT_TRUE(followed.ok());
  EXPECT_EQ(asked, 3);
  EXPECT_EQ(out.str(), "quiet\n");
}

TEST_F(LogFollowerTest, AnErrorOfTheConditionEndsFollowingWithIt) {
  std::ostringstream out;
  const Status followed = follow_log(
      path(), out, []() -> Result<bool> { return internal_error("the store is gone"); }, kOnEvents);
  ASSERT_FALSE(followed.ok());
  EXPECT_EQ(followed.error().message, "the store is gone");
}

}  // namespace
}  // namespace orrery
