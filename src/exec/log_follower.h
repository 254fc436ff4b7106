// Reading one stream's log as LogFile (exec/log_file.h) writes it
// (docs/execution.md, "Logs"): whole, or followed as it grows.
//
// Invariants: the rotated, older part (RunDirectory::rotated_log) is read
// before the current file, and once only; a rotation while following loses
// nothing (the old file is read to its end through the descriptor kept
// open before the new one is read from its start); following waits on
// inotify events of the log's directory, never on a sleep, and asks its
// stop condition at most every `at_most_every` and, when nothing happens,
// `at_least_every` after the last time (a run can end without a write).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <ostream>
#include <string>

#include "core/result.h"

namespace orrery {

// The whole log: the rotated part, when there is one, then the current file.
std::string read_log(const std::string& path);

// Copies one log to an output stream as it grows, across rotations.
class LogFollower {
 public:
  LogFollower(std::string path, std::ostream& out) : path_(std::move(path)), out_(out) {}
  ~LogFollower();
  LogFollower(const LogFollower&) = delete;
  LogFollower& operator=(const LogFollower&) = delete;

  // Prints the rotated part once, before anything else.
  void start();
  // Copies what is new and flushes; the file may not exist yet.
  void copy_new();

 private:
  void open_current();

  std::string path_;
  std::ostream& out_;
  int fd_ = -1;
  ino_t inode_ = 0;
};

// Whether to stop following: true stops; an error stops with it.
using FollowUntil = std::function<Result<bool>()>;

struct FollowPace {
  std::chrono::milliseconds at_most_every{250};
  std::chrono::milliseconds at_least_every{250};
};

// Prints the log at `path` to `out` until `until` says so, then what is
// left; an error of `until` is returned at once.
Status follow_log(const std::string& path, std::ostream& out, const FollowUntil& until,
                  FollowPace pace = {});

}  // namespace orrery
