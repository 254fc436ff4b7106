#include "exec/wake.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "store/home_layout.h"

namespace orrery {
namespace {

constexpr const char* kSocketName = HomeLayout::kDaemonSocketName;

// A socket address for `path`; a path too long for sun_path is reached
// through `dir_fd` (the data directory opened O_PATH) as
// /proc/self/fd/N/daemon.sock. Nothing when neither fits.
std::optional<sockaddr_un> socket_address(const std::string& path, int dir_fd) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::string text = path;
  if (text.size() >= sizeof address.sun_path) {
    if (dir_fd < 0) return std::nullopt;
    text = "/proc/self/fd/" + std::to_string(dir_fd) + "/" + kSocketName;
  }
  if (text.size() >= sizeof address.sun_path) return std::nullopt;
  std::memcpy(address.sun_path, text.c_str(), text.size() + 1);
  return address;
}

bool needs_dir_fd(const std::string& path) { return path.size() >= sizeof(sockaddr_un{}.sun_path); }

int open_dir(const std::string& home) {
  return ::open(home.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
}

Error socket_error(const std::string& what, const std::string& path, int error) {
  return internal_error("cannot " + what + " the wake-up socket " + path + ": " +
                        std::strerror(error));
}

}  // namespace

std::string wake_socket_path(const std::string& home) { return HomeLayout(home).daemon_socket(); }

void notify_daemon(const std::string& home) {
  const std::string path = wake_socket_path(home);
  const int dir_fd = needs_dir_fd(path) ? open_dir(home) : -1;
  const auto address = socket_address(path, dir_fd);
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (address && fd >= 0) {
    const char message = 'w';
    (void)sendto(fd, &message, 1, MSG_DONTWAIT | MSG_NOSIGNAL,
                 reinterpret_cast<const sockaddr*>(&*address), sizeof *address);
  }
  if (fd >= 0) ::close(fd);
  if (dir_fd >= 0) ::close(dir_fd);
}

Result<WakeListener> WakeListener::listen(const std::string& home) {
  const std::string path = wake_socket_path(home);
  const int dir_fd = open_dir(home);
  if (dir_fd < 0) return socket_error("open the directory of", path, errno);
  const auto address = socket_address(path, dir_fd);
  if (!address) {
    ::close(dir_fd);
    return internal_error("cannot bind the wake-up socket " + path + ": the path is too long");
  }
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    const int error = errno;
    ::close(dir_fd);
    return socket_error("create", path, error);
  }
  // Only the lease holder binds: a socket file left by a daemon that died is stale.
  if (unlinkat(dir_fd, kSocketName, 0) != 0 && errno != ENOENT) {
    const int error = errno;
    ::close(fd);
    ::close(dir_fd);
    return socket_error("replace", path, error);
  }
  const mode_t old_mask = umask(0177);  // created 0600, never wider for a moment
  const int bound = bind(fd, reinterpret_cast<const sockaddr*>(&*address), sizeof *address);
  const int bind_error = errno;
  umask(old_mask);
  struct stat info {};
  if (bound != 0 || fchmodat(dir_fd, kSocketName, 0600, 0) != 0 ||
      fstatat(dir_fd, kSocketName, &info, AT_SYMLINK_NOFOLLOW) != 0) {
    const int error = bound != 0 ? bind_error : errno;
    ::close(fd);
    ::close(dir_fd);
    return socket_error("bind", path, error);
  }
  return WakeListener(fd, dir_fd, info.st_dev, info.st_ino);
}

WakeListener::WakeListener(WakeListener&& other) noexcept
    : fd_(other.fd_), dir_fd_(other.dir_fd_), dev_(other.dev_), ino_(other.ino_) {
  other.fd_ = -1;
  other.dir_fd_ = -1;
}

WakeListener::~WakeListener() {
  if (fd_ >= 0) ::close(fd_);
  if (dir_fd_ < 0) return;
  struct stat info {};
  if (fstatat(dir_fd_, kSocketName, &info, AT_SYMLINK_NOFOLLOW) == 0 && info.st_dev == dev_ &&
      info.st_ino == ino_) {
    unlinkat(dir_fd_, kSocketName, 0);
  }
  ::close(dir_fd_);
}

int WakeListener::drain() {
  int count = 0;
  char buffer[64];
  while (recv(fd_, buffer, sizeof buffer, MSG_DONTWAIT) >= 0) ++count;
  return count;
}

}  // namespace orrery
