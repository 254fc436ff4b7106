// Wake-ups (docs/daemon.md, "Wake-ups"): a command that changed what the
// daemon should do (add, resume, unarchive, trigger, edit, rm, run next-in,
// a supervisor's finish) tells the daemon after its commit, so nothing waits
// for a timer. The daemon listens on a Unix datagram socket, `daemon.sock`
// in the data directory (mode 0600); the message carries no data.
//
// Invariants: notifying never blocks and never fails the caller — no daemon
// running, a full socket buffer or a path too long are all ignored — because
// the database stays the only truth: a lost wake-up costs latency, never
// correctness. A path longer than a socket address holds is reached through
// a descriptor of the directory (/proc/self/fd/N/daemon.sock).
#pragma once

#include <sys/types.h>

#include <string>

#include "core/result.h"

namespace orrery {

// The wake-up socket's path for a data directory.
std::string wake_socket_path(const std::string& home);

// Tells a daemon listening for `home` to look again. Never fails.
void notify_daemon(const std::string& home);

// The daemon's end: the socket bound at wake_socket_path(home), mode 0600.
// A stale socket file (a daemon that died) is replaced; the file is removed
// when the listener is destroyed, unless another socket replaced it.
class WakeListener {
 public:
  static Result<WakeListener> listen(const std::string& home);
  WakeListener(WakeListener&& other) noexcept;
  WakeListener& operator=(WakeListener&&) = delete;
  WakeListener(const WakeListener&) = delete;
  ~WakeListener();

  // Non-blocking, for epoll; readable when a wake-up arrived.
  int fd() const { return fd_; }
  // Reads every pending wake-up; returns how many there were.
  int drain();

 private:
  WakeListener(int fd, int dir_fd, dev_t dev, ino_t ino)
      : fd_(fd), dir_fd_(dir_fd), dev_(dev), ino_(ino) {}

  int fd_ = -1;
  int dir_fd_ = -1;  // the data directory (O_PATH), for removing the file
  dev_t dev_ = 0;
  ino_t ino_ = 0;
};

}  // namespace orrery
