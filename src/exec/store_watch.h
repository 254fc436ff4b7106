// StoreWatch: a descriptor that becomes readable when the database may have
// changed, for a process that waits on other processes' writes
// (docs/workflows.md, "Waiting without polling"): `workflow run --wait`
// following a run another driver holds, and a driver waiting for a cancel
// asked from elsewhere. On a SQLite file it is inotify on the file and its
// write-ahead log (every commit writes one of them); on a database server
// it is the store's notices (a cancel request notifies; a follower also
// looks again at the wait's timeout); with neither, only the timeout.
//
// Invariants: it never blocks the caller beyond the timeout given; a change
// committed after it was made is reported by the next wait(), within
// kStoreLookIntervalMs of the previous change seen (so a busy database costs
// a waiter at most ten looks a second); a watch that cannot be set up
// degrades to the timeout, never to an error.
#pragma once

#include <chrono>
#include <string>

#include "store/store_notices.h"

namespace orrery {

inline constexpr std::chrono::milliseconds kStoreLookIntervalMs{100};

class StoreWatch {
 public:
  // `database_path`: the SQLite file (empty for a server); `notices`: the
  // store's, asked for a descriptor when there is no file to watch.
  StoreWatch(const std::string& database_path, StoreNotices& notices);
  StoreWatch(const StoreWatch&) = delete;
  StoreWatch& operator=(const StoreWatch&) = delete;
  ~StoreWatch();

  // Readable when the database may have changed; -1 when nothing can tell.
  int fd() const { return inotify_ >= 0 ? inotify_ : notice_fd_; }
  // How long until a change may be reported again (zero: now): leave fd()
  // out of a poll until then.
  std::chrono::milliseconds quiet_left() const;
  // fd() was readable: reads what made it so, and starts the quiet interval.
  void saw_change();
  // Sleeps until the database may have changed or `timeout` passed; true
  // when it may have changed.
  bool wait(std::chrono::milliseconds timeout);

 private:
  void drain();

  StoreNotices& notices_;
  std::chrono::steady_clock::time_point quiet_until_{};
  int inotify_ = -1;
  int notice_fd_ = -1;
};

}  // namespace orrery
