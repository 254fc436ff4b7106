// Events: the seam for waiting (docs/daemon.md, "Seams"). The daemon sleeps
// until the earliest of a wall-clock deadline, a signal, a readable
// descriptor it watches (the wake-up socket, the database's notices) or the
// exit of a supervisor it watches, and learns which of them happened.
// EventLoop (engine/event_loop.h) is the machine's; tests give a fake that
// moves a fake clock to the deadline instead of sleeping.
//
// Invariants: a watched process is reported exited once, by the first
// wait() after it ended (one already gone when watched: by the next wait);
// wait() with no deadline and no event sleeps until one comes.
#pragma once

#include <sys/types.h>

#include <optional>
#include <vector>

#include "core/result.h"
#include "core/time.h"

namespace orrery {

struct LoopEvents {
  std::vector<int> signals;       // signal numbers, in arrival order
  bool readable = false;          // a watched descriptor is readable
  std::vector<int> readable_fds;  // which
  bool deadline = false;          // the deadline passed
  bool clock_stepped = false;     // the wall clock was set (NTP, by hand)
  std::vector<pid_t> exited;      // watched processes that ended (no longer watched)
  bool any() const {
    return !signals.empty() || readable || deadline || clock_stepped || !exited.empty();
  }
};

class Events {
 public:
  virtual ~Events() = default;
  // Watches one more descriptor for reading.
  virtual Status watch_readable(int fd) = 0;
  // Stops watching it (before it is closed or replaced).
  virtual void unwatch_readable(int fd) = 0;
  // Watches a process until it exits.
  virtual void watch_process(pid_t pid) = 0;
  // The same through a pidfd the caller opened; the watcher owns it from now on.
  virtual void watch_process(pid_t pid, int pidfd) = 0;
  // Sleeps until an event or the wall-clock `deadline` (none: no deadline).
  virtual Result<LoopEvents> wait(std::optional<TimeMs> deadline) = 0;
};

}  // namespace orrery
