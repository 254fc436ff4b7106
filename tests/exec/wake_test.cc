#include "exec/wake.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "support/temp_dir.h"

namespace orrery {
namespace {

bool readable_within(int fd, int timeout_ms) {
  pollfd wanted{fd, POLLIN, 0};
  return poll(&wanted, 1, timeout_ms) == 1;
}

// A data directory whose socket path is longer than a socket address holds.
std::string long_home(const std::string& base) {
  std::string home = base;
  while (home.size() < 150) home += "/a-directory-with-a-long-name";
  std::filesystem::create_directories(home);
  return home;
}

TEST(WakeSocket, PathIsDaemonSockInTheDataDirectory) {
  EXPECT_EQ(wake_socket_path("/data/orrery"), "/data/orrery/daemon.sock");
  EXPECT_EQ(wake_socket_path("/x"), "/x/daemon.sock");
}

TEST(WakeSocket, ListenerIsASocketOfMode0600) {
  const testing::TempDir dir;
  for (mode_t mask : {mode_t(0), mode_t(022), mode_t(077)}) {
    const mode_t old = umask(mask);
    auto listener = WakeListener::listen(dir.path());
    umask(old);
    ASSERT_TRUE(listener.ok()) << listener.error().message;
    struct stat info {};
    ASSERT_EQ(stat(wake_socket_path(dir.path()).c_str(), &info), 0);
    EXPECT_TRUE(S_ISSOCK(info.st_mode));
    EXPECT_EQ(info.st_mode & 0777, 0600u) << "umask " << mask;
  }
}

TEST(WakeSocket, NotifyMakesTheListenerReadable) {
  const testing::TempDir dir;
  auto listener = WakeListener::listen(dir.path());
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  EXPECT_FALSE(readable_within(listener->fd(), 0));
  for (int count : {1, 2, 5}) {
    for (int i = 0; i < count; ++i) notify_daemon(dir.path());
    EXPECT_TRUE(readable_within(listener->fd(), 1000));
    EXPECT_EQ(listener->drain(), count);
    EXPECT_FALSE(readable_within(listener->fd(), 0));
  }
}

TEST(WakeSocket, StaleSocketFileIsReplaced) {
  const testing::TempDir dir;
  {
    // A daemon that died leaves its socket file behind.
    const int stale = socket(AF_UNIX, SOCK_DGRAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const std::string path = wake_socket_path(dir.path());
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
    ASSERT_EQ(bind(stale, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    close(stale);
  }
  ASSERT_TRUE(std::filesystem::exists(wake_socket_path(dir.path())));
  auto listener = WakeListener::listen(dir.path());
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  notify_daemon(dir.path());
  EXPECT_TRUE(readable_within(listener->fd(), 1000));
}

TEST(WakeSocket, RemovedWhenTheListenerEnds) {
  const testing::TempDir dir;
  { auto listener = WakeListener::listen(dir.path()); }
  EXPECT_FALSE(std::filesystem::exists(wake_socket_path(dir.path())));
}

TEST(WakeSocket, ALaterListenersFileIsNotRemovedByAnEarlierOne) {
  const testing::TempDir dir;
  auto first = WakeListener::listen(dir.path());
  ASSERT_TRUE(first.ok());
  auto second = WakeListener::listen(dir.path());  // replaces the file
  ASSERT_TRUE(second.ok());
  { WakeListener gone = std::move(*first); }
  EXPECT_TRUE(std::filesystem::exists(wake_socket_path(dir.path())));
  notify_daemon(dir.path());
  EXPECT_TRUE(readable_within(second->fd(), 1000));
}

TEST(WakeSocket, LongPathsAreReachedThroughTheDirectory) {
  const testing::TempDir dir;
  const std::string home = long_home(dir.path());
  ASSERT_GE(wake_socket_path(home).size(), sizeof(sockaddr_un{}.sun_path));
  auto listener = WakeListener::listen(home);
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  EXPECT_TRUE(std::filesystem::exists(wake_socket_path(home)));
  notify_daemon(home);
  EXPECT_TRUE(readable_within(listener->fd(), 1000));
  EXPECT_EQ(listener->drain(), 1);
}

TEST(WakeSocket, NotifyWithoutADaemonDoesNothing) {
  const testing::TempDir dir;
  notify_daemon(dir.path());                       // no socket
  notify_daemon(dir.path() + "/missing/dir");      // no directory
  notify_daemon(long_home(dir.path()) + "/none");  // too long and missing
  EXPECT_FALSE(std::filesystem::exists(wake_socket_path(dir.path())));
}

TEST(WakeSocket, NotifyNeverBlocksOnAFullBuffer) {
  const testing::TempDir dir;
  auto listener = WakeListener::listen(dir.path());
  ASSERT_TRUE(listener.ok());
  for (int i = 0; i < 5000; ++i) notify_daemon(dir.path());  // far beyond the buffer
  EXPECT_GT(listener->drain(), 0);
}

TEST(WakeSocket, ListenInAMissingDirectoryIsAnError) {
  const testing::TempDir dir;
  auto listener = WakeListener::listen(dir.path() + "/missing");
  ASSERT_FALSE(listener.ok());
  EXPECT_NE(listener.error().message.find("wake-up socket"), std::string::npos);
}

}  // namespace
}  // namespace orrery
