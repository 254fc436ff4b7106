// NoticeWatch: a daemon's ear for the database's notices (docs/daemon.md,
// "Runners"): runs left pending, cancel requests and loop changes that other
// processes, on any host, signal through a shared database server.
//
// It subscribes through the store, watches the descriptor the store gives
// among the daemon's events (engine/events.h), and reads the notices when
// that descriptor is readable. Invariants: the descriptor is watched afresh
// on every refresh() (a connection made again may reuse the number of the
// old one, which the event loop forgot when it closed); a store error while
// subscribing or reading is logged once and leaves notices off until the
// next refresh(), which the daemon makes at every heartbeat; a backend
// without notices (a SQLite file) leaves nothing watched.
#pragma once

#include <functional>
#include <string>

#include "core/result.h"
#include "engine/events.h"
#include "store/store_notices.h"

namespace orrery {

class NoticeWatch {
 public:
  using Log = std::function<void(const std::string&)>;
  NoticeWatch(StoreNotices& store, Events& loop, Log log)
      : store_(store), loop_(loop), log_(std::move(log)) {}

  // Subscribes (again) and watches the current descriptor.
  void refresh();
  // The event loop found `fd` readable: notices may wait to be read.
  void readable(int fd);
  // Reads the notices that arrived: true when some did (or when they may
  // have, before the descriptor was watched).
  bool take();

 private:
  void watch(int fd);

  StoreNotices& store_;
  Events& loop_;
  Log log_;
  int fd_ = -1;
  bool ready_ = false;
  bool failing_ = false;
};

}  // namespace orrery
