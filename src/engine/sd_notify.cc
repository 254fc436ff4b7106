#include "engine/sd_notify.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace orrery {

bool sd_notify_to(const std::string& address, const std::string& state) {
  sockaddr_un to{};
  to.sun_family = AF_UNIX;
  if (address.size() < 2 || address.size() >= sizeof to.sun_path) return false;
  if (address[0] != '/' && address[0] != '@') return false;
  std::memcpy(to.sun_path, address.data(), address.size());
  if (address[0] == '@') to.sun_path[0] = '\0';  // abstract: no terminating NUL counts
  const socklen_t length =
      socklen_t(offsetof(sockaddr_un, sun_path) + address.size() + (address[0] == '/' ? 1 : 0));
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return false;
  const ssize_t sent = sendto(fd, state.data(), state.size(), MSG_NOSIGNAL,
                              reinterpret_cast<const sockaddr*>(&to), length);
  ::close(fd);
  return sent == ssize_t(state.size());
}

void sd_notify(const std::string& state) {
  const char* address = std::getenv("NOTIFY_SOCKET");
  if (address != nullptr && *address != '\0') (void)sd_notify_to(address, state);
}

std::optional<DurationMs> watchdog_interval() {
  const char* usec = std::getenv("WATCHDOG_USEC");
  if (usec == nullptr || *usec == '\0') return std::nullopt;
  if (const char* pid = std::getenv("WATCHDOG_PID"); pid != nullptr && *pid != '\0') {
    if (std::strtoll(pid, nullptr, 10) != getpid()) return std::nullopt;
  }
  char* end = nullptr;
  const long long micros = std::strtoll(usec, &end, 10);
  if (end == usec || *end != '\0' || micros <= 0) return std::nullopt;
  return std::max<DurationMs>(1, micros / 2000);
}

}  // namespace orrery
