#include "engine/event_loop.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "exec/clock.h"
#include "exec/wake.h"
#include "support/temp_dir.h"

namespace orrery {
namespace {

using Clock = std::chrono::steady_clock;

// A child that exits once it reads a byte from `release` (or at once).
pid_t start_child(int release = -1) {
  const pid_t pid = fork();
  if (pid == 0) {
    char byte;
    if (release >= 0) (void)!read(release, &byte, 1);
    _exit(0);
  }
  return pid;
}

void reap(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
}

bool signal_blocked(int signal) {
  sigset_t mask;
  pthread_sigmask(SIG_BLOCK, nullptr, &mask);
  return sigismember(&mask, signal) == 1;
}

TEST(EventLoop, WakesAtAWallClockDeadline) {
  auto loop = EventLoop::create();
  ASSERT_TRUE(loop.ok()) << loop.error().message;
  for (DurationMs ahead : {-1000, 0, 30, 80}) {
    const auto start = Clock::now();
    auto events = loop->wait(wall_clock_now() + ahead);
    ASSERT_TRUE(events.ok());
    EXPECT_TRUE(events->deadline) << ahead;
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    EXPECT_GE(waited.count(), std::max<DurationMs>(0, ahead) - 2) << ahead;
    EXPECT_LT(waited.count(), 1000) << ahead;
  }
}

// A backlog of exited processes larger than one epoll batch is reported in
// one wait, and a signal that arrived after them is not hidden behind it.
TEST(EventLoop, ReportsEveryExitAndASignalBehindThemInOneWait) {
  auto loop = EventLoop::create();
  ASSERT_TRUE(loop.ok());
  std::vector<pid_t> children;
  for (int i = 0; i < 300; ++i) {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    ASSERT_GT(child, 0);
    children.push_back(child);
    loop->watch_process(child);
  }
  for (pid_t child : children) {  // every one has exited (not reaped: still watchable)
    siginfo_t info{};
    ASSERT_EQ(waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT), 0);
  }
  ASSERT_EQ(::kill(getpid(), SIGHUP), 0);
  auto events = loop->wait(std::nullopt);
  ASSERT_TRUE(events.ok());
  std::vector<pid_t> exited = events->exited;
  std::sort(exited.begin(), exited.end());
  std::vector<pid_t> expected = children;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(exited, expected);
  EXPECT_NE(std::find(events->signals.begin(), events->signals.end(), SIGHUP),
            events->signals.end());
  EXPECT_EQ(loop->watched_processes(), 0u);
  for (pid_t child : children) waitpid(child, nullptr, 0);
}

TEST(EventLoop, WakesOnAWakeUp) {
  const testing::TempDir dir;
  auto loop = EventLoop::create();
  ASSERT_TRUE(loop.ok());
  auto listener = WakeListener::listen(dir.path());
  ASSERT_TRUE(listener.ok());
  ASSERT_TRUE(loop->watch_readable(listener->fd()).ok());
  for (int round = 0; round < 3; ++round) {
    notify_daemon(dir.path());
    auto events = loop->wait(wall_clock_now() + 10'000);
    ASSERT_TRUE(events.ok());
    EXPECT_TRUE(events->readable);
    EXPECT_FALSE(events->deadline);
    EXPECT_EQ(listener->drain(), 1);
  }
}

TEST(EventLoop, TellsWhichOfSeveralWatchedDescriptorsIsReadableAndForgetsAnUnwatchedOne) {
  auto loop = EventLoop::create();
  ASSERT_TRUE(loop.ok());
  int first[2];
  int second[2];
  ASSERT_EQ(pipe(first), 0);
  ASSERT_EQ(pipe(second), 0);
  ASSERT_TRUE(loop->watch_readable(first[0]).ok());
  ASSERT_TRUE(loop->watch_readable(second[0]).ok());
  ASSERT_EQ(write(second[1], "x", 1), 1);
  auto events = loop->wait(wall_clock_now() + 10'000);
  ASSERT_TRUE(events.ok());
  EXPECT_TRUE(events->readable);
  EXPECT_EQ(events->readable_fds, std::vector<int>{second[0]});
  loop->unwatch_readable(second[0]);
  loop->unwatch_readable(second[0]);  // twice: nothing more happens
  events = loop->wait(wall_clock_now() + 50);
  ASSERT_TRUE(events.ok());
  EXPECT_FALSE(events->readable) << "an unwatched descriptor wakes nothing";
  EXPECT_TRUE(events->deadline);
  ASSERT_EQ(write(first[1], "y", 1), 1);
  events = loop->wait(wall_clock_now() + 10'000);
  ASSERT_TRUE(events.ok());
  EXPECT_EQ(events->readable_fds, std::vector<int>{first[0]});
  for (int fd : {first[0], first[1], second[0], second[1]}) ::close(fd);
}

TEST(EventLoop, ReadsBlockedSignals) {
  auto loop = EventLoop::create();
  ASSERT_TRUE(loop.ok());
  for (int signal : {SIGTERM, SIGINT, SIGHUP, SIGCHLD}) {
    EXPECT_TRUE(signal_blocked(signal)) << signal;
    ASSERT_EQ(raise(signal), 0);
    auto events = loop->wait(wall_clock_now() + 10'000);
    ASSERT_TRUE(events.ok());
    ASSERT_EQ(events->signals.size(), 1u) << signal;
    EXPECT_EQ(events->signals.front(), signal);
  }
}

TEST(EventLoop, RestoresTheSignalMaskWhenDestroyed) {
  ASSERT_FALSE(signal_blocked(SIGHUP));
  {
    auto loop = EventLoop::create();
    ASSERT_TRUE(loop.ok());
    EXPECT_TRUE(signal_blocked(SIGHUP));
  }
  EXPECT_FALSE(signal_blocked(SIGHUP));
}

TEST(EventLoop, WakesWhenAWatchedProcessExits) {
  auto loop = EventLoop::create();
  ASSERT_TRUE(loop.ok());
  int pipes[2];
  ASSERT_EQ(pipe(pipes), 0);
  const pid_t first = start_child(pipes[0]);
  const pid_t second = start_child(pipes[0]);
  loop->watch_process(first);
  loop->watch_process(second);
  EXPECT_EQ(loop->watched_processes(), 2u);
  auto none = loop->wait(wall_clock_now() + 50);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->exited.empty());
  ASSERT_EQ(write(pipes[1], "xx", 2), 2);  // both may exit now
  std::vector<pid_t> exited;
  const auto give_up = Clock::now() + std::chrono::seconds(5);
  while (exited.size() < 2 && Clock::now() < give_up) {
    auto events = loop->wait(wall_clock_now() + 5'000);
    ASSERT_TRUE(events.ok());
    exited.insert(exited.end(), events->exited.begin(), events->exited.end());
  }
  std::sort(exited.begin(), exited.end());
  EXPECT_EQ(exited, (std::vector<pid_t>{std::min(first, second), std::max(first, second)}));
  EXPECT_EQ(loop->watched_processes(), 0u);
  reap(first);
  reap(second);
  close(pipes[0]);
  close(pipes[1]);
}

TEST(EventLoop, AProcessAlreadyGoneIsReportedAtOnce) {
  auto loop = EventLoop::create();
  ASSERT_TRUE(loop.ok());
  const pid_t child = start_child();
  reap(child);  // gone before it is watched
  loop->watch_process(child);
  const auto start = Clock::now();
  auto events = loop->wait(wall_clock_now() + 10'000);
  ASSERT_TRUE(events.ok());
  EXPECT_EQ(events->exited, std::vector<pid_t>{child});
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(1));
}

TEST(EventLoop, WithoutEventsItSleepsPastShortIntervals) {
  auto loop = EventLoop::create();
  ASSERT_TRUE(loop.ok());
  const auto start = Clock::now();
  auto events = loop->wait(wall_clock_now() + 300);
  ASSERT_TRUE(events.ok());
  // One wake-up, at the deadline: nothing polls in between.
  EXPECT_TRUE(events->deadline);
  EXPECT_FALSE(events->readable);
  EXPECT_TRUE(events->signals.empty());
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(298));
}

}  // namespace
}  // namespace orrery
