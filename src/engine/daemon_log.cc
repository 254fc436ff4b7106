#include "engine/daemon_log.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/text.h"

namespace orrery {
namespace {

// Non-blocking: opening a FIFO nobody reads fails (ENXIO) instead of
// waiting for a reader, and a full FIFO or pipe drops a line instead of
// stopping the daemon (a regular file is not affected).
Result<int> open_log(const std::string& path) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0600);
  if (fd < 0 && errno == ENXIO) {
    return usage_error("--log " + path +
                       ": cannot open the log file: it is a FIFO that no process reads; start "
                       "its reader first");
  }
  if (fd < 0) {
    return usage_error("--log " + path + ": cannot open the log file: " + std::strerror(errno));
  }
  return fd;
}

}  // namespace

Result<DaemonLog> DaemonLog::open_file(const std::string& path) {
  auto fd = open_log(path);
  if (!fd) return fd.error();
  DaemonLog log;
  log.path_ = path;
  log.fd_ = *fd;
  return log;
}

DaemonLog::~DaemonLog() {
  if (fd_ >= 0) ::close(fd_);
}

Status DaemonLog::reopen() {
  if (path_.empty()) return Ok{};
  auto fd = open_log(path_);
  if (!fd) return fd.error();  // the old file stays in use
  ::close(fd_);
  fd_ = *fd;
  return Ok{};
}

void DaemonLog::write(TimeMs at, const std::string& text) {
  const std::string line = format_time(at) + " " + terminal_text(text) + "\n";
  const int fd = fd_ >= 0 ? fd_ : STDERR_FILENO;
  // A reader that is stuck (a full pipe, a terminal stopped with Ctrl-S)
  // costs lines, not the daemon's heartbeats.
  pollfd ready{fd, POLLOUT, 0};
  int polled = 0;
  do {
    polled = ::poll(&ready, 1, dropping_ ? 0 : kLogWaitMs);
  } while (polled < 0 && errno == EINTR);
  if (polled == 0) {
    dropping_ = true;
    return;
  }
  ssize_t written = 0;
  do {
    written = ::write(fd, line.data(), line.size());
  } while (written < 0 && errno == EINTR);
  dropping_ = written < 0 && errno == EAGAIN;
}

}  // namespace orrery
