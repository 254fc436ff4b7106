#include "engine/notice_watch.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/event_loop.h"
#include "exec/clock.h"

namespace orrery {
namespace {

// A store whose notices come through a pipe the test writes to, and whose
// subscription or reading can be made to fail.
class PipeNotices : public StoreNotices {
 public:
  PipeNotices() {
    if (pipe(pipe_) != 0) ADD_FAILURE() << "cannot make a pipe";
  }
  ~PipeNotices() override {
    ::close(pipe_[0]);
    ::close(pipe_[1]);
  }
  Result<int> listen_for_notices() override {
    ++listens;
    if (fail_listen) return unavailable_error("the server is gone");
    return pipe_[0];
  }
  Result<bool> take_notices() override {
    if (fail_take) return unavailable_error("lost the connection");
    char byte = 0;
    bool any = false;
    while (pending_ > 0 && read(pipe_[0], &byte, 1) == 1) {
      --pending_;
      any = true;
    }
    return any;
  }
  void notify() {
    ASSERT_EQ(write(pipe_[1], "n", 1), 1);
    ++pending_;
  }
  int listens = 0;
  bool fail_listen = false;
  bool fail_take = false;

 private:
  int pipe_[2] = {-1, -1};
  int pending_ = 0;
};

class NoticeWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_.emplace();
    auto loop = EventLoop::create();
    ASSERT_TRUE(loop.ok());
    loop_.emplace(std::move(*loop));
  }

  // Waits for the loop's next events (at most 10 s) and hands the readable
  // descriptors to the watch.
  void deliver(NoticeWatch& watch) {
    auto events = loop_->wait(wall_clock_now() + 10'000);
    ASSERT_TRUE(events.ok());
    ASSERT_TRUE(events->readable) << "no notice arrived";
    for (int fd : events->readable_fds) watch.readable(fd);
  }

  std::optional<PipeNotices> store_;
  std::optional<EventLoop> loop_;
  std::vector<std::string> lines_;
  NoticeWatch::Log log_ = [this](const std::string& line) { lines_.push_back(line); };
};

TEST_F(NoticeWatchTest, ANoticeWakesTheLoopAndIsTakenOnce) {
  NoticeWatch watch(*store_, *loop_, log_);
  watch.refresh();
  EXPECT_FALSE(watch.take()) << "nothing came (read at once: it may have before the watch)";
  store_->notify();
  deliver(watch);
  EXPECT_TRUE(watch.take());
  EXPECT_FALSE(watch.take());
  EXPECT_TRUE(lines_.empty());
}

TEST_F(NoticeWatchTest, ASubscriptionThatFailsIsLoggedOnceAndRetriedAtEachRefresh) {
  NoticeWatch watch(*store_, *loop_, log_);
  store_->fail_listen = true;
  watch.refresh();
  watch.refresh();
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_EQ(lines_[0],
            "notices are off (the server is gone); pending runs are looked for at each "
            "heartbeat");
  EXPECT_FALSE(watch.take()) << "nothing is watched";
  store_->fail_listen = false;
  watch.refresh();
  EXPECT_EQ(store_->listens, 3);
  ASSERT_EQ(lines_.size(), 2u);
  EXPECT_EQ(lines_[1], "notices are on again");
  watch.take();
  store_->notify();
  deliver(watch);
  EXPECT_TRUE(watch.take());
}

TEST_F(NoticeWatchTest, AReadThatFailsStopsWatchingUntilTheNextRefresh) {
  NoticeWatch watch(*store_, *loop_, log_);
  watch.refresh();
  watch.take();
  store_->notify();
  deliver(watch);
  store_->fail_take = true;
  EXPECT_TRUE(watch.take()) << "what came is unknown: the daemon looks";
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_EQ(lines_[0],
            "notices could not be read (lost the connection); listening again at the next "
            "heartbeat");
  // Unwatched: the byte still in the pipe wakes nothing.
  auto events = loop_->wait(wall_clock_now() + 50);
  ASSERT_TRUE(events.ok());
  EXPECT_FALSE(events->readable);
  store_->fail_take = false;
  watch.refresh();
  EXPECT_TRUE(watch.take()) << "the notice that waited is read after the refresh";
}

}  // namespace
}  // namespace orrery
