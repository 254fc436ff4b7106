#include "engine/notice_watch.h"

namespace orrery {

void NoticeWatch::refresh() {
  auto fd = store_.listen_for_notices();
  if (!fd) {
    if (!failing_) {
      log_("notices are off (" + fd.error().message +
           "); pending runs are looked for at each heartbeat");
    }
    failing_ = true;
    watch(-1);
    return;
  }
  if (failing_ && *fd >= 0) log_("notices are on again");
  failing_ = false;
  watch(*fd);
}

void NoticeWatch::readable(int fd) {
  if (fd >= 0 && fd == fd_) ready_ = true;
}

bool NoticeWatch::take() {
  if (!ready_) return false;
  ready_ = false;
  auto noticed = store_.take_notices();
  if (!noticed) {
    log_("notices could not be read (" + noticed.error().message +
         "); listening again at the next heartbeat");
    watch(-1);
    return true;  // what came is unknown: look
  }
  return *noticed;
}

void NoticeWatch::watch(int fd) {
  if (fd_ >= 0) loop_.unwatch_readable(fd_);
  fd_ = -1;
  if (fd < 0) return;
  if (auto watched = loop_.watch_readable(fd); !watched) {
    log_("notices are off: " + watched.error().message);
    return;
  }
  fd_ = fd;
  ready_ = true;  // notices may have arrived before the watch
}

}  // namespace orrery
