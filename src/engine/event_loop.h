// The daemon's event loop (docs/daemon.md, "Wake-ups"): one epoll set that
// sleeps until the earliest of
//   - a wall-clock deadline (a timerfd on CLOCK_REALTIME, absolute, with
//     TFD_TIMER_CANCEL_ON_SET: a step of the wall clock wakes it too),
//   - a signal (SIGTERM, SIGINT, SIGHUP, SIGCHLD: blocked and read from a
//     signalfd, so none interrupts anything else),
//   - a readable descriptor the caller watches (the wake-up socket, the
//     database's notices),
//   - the exit of a process watched through its pidfd.
// There is no polling interval: without events and deadlines it sleeps.
// It is the machine's Events (engine/events.h).
//
// Invariants: creating it blocks the four signals for the calling thread
// (the daemon is single-threaded); destroying it closes every descriptor it
// owns, pidfds included, and restores the signal mask.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <optional>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "engine/events.h"

namespace orrery {

class EventLoop final : public Events {
 public:
  static Result<EventLoop> create();
  EventLoop(EventLoop&& other) noexcept;
  EventLoop& operator=(EventLoop&&) = delete;
  EventLoop(const EventLoop&) = delete;
  ~EventLoop() override;

  // Watches one more descriptor for reading (the wake-up socket, the
  // database's notices).
  Status watch_readable(int fd) override;
  // Stops watching it (before it is closed or replaced).
  void unwatch_readable(int fd) override;
  // Watches a process through a pidfd. A process that is already gone is
  // reported by the next wait() as exited.
  void watch_process(pid_t pid) override;
  // The same through a pidfd the caller opened; the loop owns it from now on.
  void watch_process(pid_t pid, int pidfd) override;
  std::size_t watched_processes() const { return pidfds_.size() + gone_.size(); }

  // Sleeps until an event or the wall-clock `deadline` (none: no deadline).
  Result<LoopEvents> wait(std::optional<TimeMs> deadline) override;

 private:
  EventLoop() = default;
  static constexpr int kReadyBatch = 64;

  Status arm(std::optional<TimeMs> deadline);
  void take(int fd, LoopEvents& events);
  void read_signals(LoopEvents& events);
  void read_timer(LoopEvents& events);
  void reap_pidfd(int pidfd, LoopEvents& events);

  int epoll_ = -1;
  int signal_fd_ = -1;
  int timer_fd_ = -1;
  std::vector<int> watched_fds_;
  sigset_t previous_mask_{};
  bool mask_set_ = false;
  std::unordered_map<int, pid_t> pidfds_;  // pidfd -> pid
  std::vector<pid_t> gone_;                // exited before a pidfd could be opened
};

}  // namespace orrery
