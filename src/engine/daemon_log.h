// The daemon's log (docs/daemon.md, "Log"): one line per event, each
// starting with the instant (YYYY-MM-DDTHH:MM:SS.mmmZ), no colour, written
// to stderr (journald keeps it) or appended to a file (--log FILE) that
// SIGHUP reopens, so logrotate can move it away.
//
// Invariants: each line is written with one write(2) on an O_APPEND
// descriptor, so lines of concurrent writers never interleave; stored text
// is escaped (one event never spans two lines); a failed write is dropped,
// never fatal; the log file never blocks the daemon (a FIFO without a
// reader is refused when opened, a full one drops lines).
#pragma once

#include <string>

#include "core/result.h"
#include "core/time.h"

namespace orrery {

class DaemonLog {
 public:
  // To stderr.
  DaemonLog() = default;
  // Appends to `path` (created 0600); an error names the file.
  static Result<DaemonLog> open_file(const std::string& path);
  DaemonLog(DaemonLog&& other) noexcept : path_(std::move(other.path_)), fd_(other.fd_) {
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
};

}  // namespace orrery
