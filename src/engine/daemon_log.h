// The daemon's log (docs/daemon.md, "Log"): one line per event, each
// starting with the instant (YYYY-MM-DDTHH:MM:SS.mmmZ), no colour, written
// to stderr (journald keeps it) or appended to a file (--log FILE) that
// SIGHUP reopens, so logrotate can move it away.
//
// Invariants: each line is written with one write(2) on an O_APPEND
// descriptor, so lines of concurrent writers never interleave; stored text
// is escaped (one event never spans two lines); a failed write is dropped,
// never fatal; the log never blocks the daemon for long: a reader (a pipe,
// a terminal, a socket, a FIFO) that does not take a line within
// kLogWaitMs loses it, and later lines are not waited for until one is
// taken again (a FIFO without a reader is refused when opened).
#pragma once

#include <string>

#include "core/result.h"
#include "core/time.h"

namespace orrery {

inline constexpr int kLogWaitMs = 100;

class DaemonLog {
 public:
  // To stderr.
  DaemonLog() = default;
  // Appends to `path` (created 0600); an error names the file.
  static Result<DaemonLog> open_file(const std::string& path);
  DaemonLog(DaemonLog&& other) noexcept
      : path_(std::move(other.path_)), fd_(other.fd_), dropping_(other.dropping_) {
    other.fd_ = -1;
  }
  DaemonLog& operator=(DaemonLog&&) = delete;
  DaemonLog(const DaemonLog&) = delete;
  ~DaemonLog();

  // Reopens the file (after a rotation); stderr needs nothing.
  Status reopen();
  void write(TimeMs at, const std::string& text);

 private:
  std::string path_;  // empty: stderr
  int fd_ = -1;
  bool dropping_ = false;  // the last line was dropped: its reader is stuck
};

}  // namespace orrery
