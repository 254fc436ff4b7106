#include "exec/store_watch.h"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>

namespace orrery {

StoreWatch::StoreWatch(const std::string& database_path, StoreNotices& notices)
    : notices_(notices) {
  if (!database_path.empty()) {
    inotify_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (inotify_ >= 0) {
      // A commit appends to the write-ahead log; a checkpoint writes the file.
      const bool watched = inotify_add_watch(inotify_, database_path.c_str(), IN_MODIFY) >= 0;
      (void)inotify_add_watch(inotify_, (database_path + "-wal").c_str(), IN_MODIFY);
      if (!watched) {
        ::close(inotify_);
        inotify_ = -1;
      }
    }
    return;
  }
  auto listened = notices_.listen_for_notices();
  if (listened) notice_fd_ = *listened;
}

StoreWatch::~StoreWatch() {
  if (inotify_ >= 0) ::close(inotify_);
}

void StoreWatch::drain() {
  if (inotify_ >= 0) {
    alignas(inotify_event) char buffer[4096];
    while (::read(inotify_, buffer, sizeof buffer) > 0) {
    }
    return;
  }
  if (notice_fd_ >= 0) {
    (void)notices_.take_notices();
    auto listened = notices_.listen_for_notices();  // may change after a reconnect
    notice_fd_ = listened ? *listened : -1;
  }
}

std::chrono::milliseconds StoreWatch::quiet_left() const {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      quiet_until_ - std::chrono::steady_clock::now());
  return std::max(left, std::chrono::milliseconds(0));
}

void StoreWatch::saw_change() {
  drain();
  quiet_until_ = std::chrono::steady_clock::now() + kStoreLookIntervalMs;
}

bool StoreWatch::wait(std::chrono::milliseconds timeout) {
  if (const auto quiet = quiet_left(); quiet.count() > 0) {
    // Changes that come meanwhile stay readable for the poll below.
    ::poll(nullptr, 0, int(std::min(quiet, timeout).count()));
    if (timeout <= quiet) return false;
    timeout -= quiet;
  }
  const int watched = fd();
  if (watched < 0) {
    ::poll(nullptr, 0, int(timeout.count()));  // nothing can tell: the timeout only
    return true;
  }
  pollfd descriptor{watched, POLLIN, 0};
  const bool changed = ::poll(&descriptor, 1, int(timeout.count())) > 0;
  if (changed) saw_change();
  return changed;
}

}  // namespace orrery
