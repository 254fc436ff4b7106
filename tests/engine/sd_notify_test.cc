#include "engine/sd_notify.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "support/temp_dir.h"

namespace orrery {
namespace {

// A datagram socket standing in for systemd, at a path or an abstract name.
class FakeSystemd {
 public:
  explicit FakeSystemd(const std::string& address) {
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un to{};
    to.sun_family = AF_UNIX;
    std::memcpy(to.sun_path, address.data(), address.size());
    socklen_t length = socklen_t(offsetof(sockaddr_un, sun_path) + address.size());
    if (address[0] == '@') {
      to.sun_path[0] = '\0';
    } else {
      ++length;
    }
    bound_ = bind(fd_, reinterpret_cast<sockaddr*>(&to), length) == 0;
    timeval timeout{1, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  }
  ~FakeSystemd() { close(fd_); }
  bool bound() const { return bound_; }
  std::string receive() {
    char buffer[512];
    const ssize_t got = recv(fd_, buffer, sizeof buffer, 0);
    return got > 0 ? std::string(buffer, size_t(got)) : std::string();
  }

 private:
  int fd_ = -1;
  bool bound_ = false;
};

TEST(SdNotify, SendsTheStateToAPathSocket) {
  const testing::TempDir dir;
  const std::string path = dir.file("notify");
  FakeSystemd systemd(path);
  ASSERT_TRUE(systemd.bound());
  for (const std::string& state :
       std::vector<std::string>{"READY=1", "WATCHDOG=1", "STOPPING=1", "READY=1\nSTATUS=x"}) {
    EXPECT_TRUE(sd_notify_to(path, state));
    EXPECT_EQ(systemd.receive(), state);
  }
}

TEST(SdNotify, SendsToAnAbstractAddress) {
  const std::string address = "@orrery-sd-notify-test-" + std::to_string(getpid());
  FakeSystemd systemd(address);
  ASSERT_TRUE(systemd.bound());
  EXPECT_TRUE(sd_notify_to(address, "READY=1"));
  EXPECT_EQ(systemd.receive(), "READY=1");
}

TEST(SdNotify, BadOrAbsentAddressesAreRefusedQuietly) {
  const testing::TempDir dir;
  for (const std::string& address :
       {std::string(""), std::string("@"), std::string("relative/path"), dir.file("nobody-listens"),
        "/" + std::string(200, 'x')}) {
    EXPECT_FALSE(sd_notify_to(address, "READY=1")) << address;
  }
}

TEST(SdNotify, UsesNotifySocketFromTheEnvironment) {
  const testing::TempDir dir;
  const std::string path = dir.file("notify");
  FakeSystemd systemd(path);
  ASSERT_TRUE(systemd.bound());
  setenv("NOTIFY_SOCKET", path.c_str(), 1);
  sd_notify("READY=1");
  unsetenv("NOTIFY_SOCKET");
  EXPECT_EQ(systemd.receive(), "READY=1");
  sd_notify("READY=1");  // unset: nothing is sent, nothing fails
}

TEST(SdNotify, WatchdogIntervalIsHalfOfWatchdogUsec) {
  const std::string self = std::to_string(getpid());
  struct Case {
    const char* usec;
    const char* pid;  // nullptr: unset
    std::optional<DurationMs> expected;
  };
  const Case cases[] = {
      {"60000000", nullptr, 30'000},  {"2000000", self.c_str(), 1'000},
      {"1000", nullptr, 1},           {"60000000", "1", std::nullopt},
      {"", nullptr, std::nullopt},    {"abc", nullptr, std::nullopt},
      {"-5", nullptr, std::nullopt},  {"0", nullptr, std::nullopt},
      {"10x", nullptr, std::nullopt},
  };
  for (const Case& c : cases) {
    setenv("WATCHDOG_USEC", c.usec, 1);
    if (c.pid) {
      setenv("WATCHDOG_PID", c.pid, 1);
    } else {
      unsetenv("WATCHDOG_PID");
    }
    EXPECT_EQ(watchdog_interval(), c.expected) << c.usec << " pid " << (c.pid ? c.pid : "-");
  }
  unsetenv("WATCHDOG_USEC");
  unsetenv("WATCHDOG_PID");
  EXPECT_EQ(watchdog_interval(), std::nullopt);
}

}  // namespace
}  // namespace orrery
