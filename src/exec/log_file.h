// LogFile: one stream of a run, written to its RunDirectory's <stream>.log
// (store/home_layout.h) within a size limit (docs/execution.md, "Logs");
// exec/log_follower.h reads it.
//
// Invariants: the stream keeps at most `limit_bytes` of output on disk: the
// current file holds at most half of it, and when the next write would pass
// that, the file is renamed to <name>.1 (replacing the older one, whose bytes
// are dropped) and a new file starts with one marker line saying what was
// dropped. Marker lines are not counted. A marker always starts a line of
// its own: when the last byte written (before a rotation: to the file now
// <name>.1, which is read before this one) was not a newline, the marker
// starts with one. Every write goes through Env and
// writes all its bytes or reports the error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"
#include "core/time.h"
#include "exec/env.h"

namespace orrery {

class LogFile {
 public:
  LogFile(Env& env, std::string path, std::int64_t limit_bytes);
  ~LogFile();
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;

  // Opens (appending to) the file, creating it 0600.
  Status open();
  // Whether the stream already holds output (an earlier attempt's).
  bool has_output() const { return bytes_in_file_ > 0 || rotated_; }
  // Appends the marker that starts an attempt: "=== attempt N started T ===".
  Status mark_attempt(int attempt, TimeMs started_at);
  Status append(std::string_view text);
  // Output dropped so far by rotation, in bytes.
  std::int64_t dropped_bytes() const { return dropped_bytes_; }
  const std::string& path() const { return path_; }

 private:
  Status rotate();
  Status write_raw(std::string_view text);
  Status write_marker(const std::string& line);
  std::string name() const;

  Env& env_;
  std::string path_;
  std::int64_t file_capacity_;  // output bytes one file holds
  int fd_ = -1;
  std::int64_t bytes_in_file_ = 0;
  bool rotated_ = false;
  std::int64_t rotated_bytes_ = 0;  // output in <name>.1
  std::int64_t dropped_bytes_ = 0;
  bool mid_line_ = false;  // the last byte written was not a newline
};

}  // namespace orrery
