// Fakes for the daemon's seams (engine/daemon.h, DaemonSystem) besides the
// clock and the processes (support/fake_clock.h, support/fake_processes.h):
//
// FakeEvents: nothing is slept. Each wait() first calls the test's on_wait
// with the deadline it was given (the test may move the clock, change the
// store, queue a signal or an exit); queued signals and the exits of
// watched processes are then reported at once, before the deadline;
// otherwise the clock moves to the deadline and wait() reports it passed.
// A wait without a deadline and without events, or more than kMaxWaits of
// them, reports SIGTERM and is flagged, so a test cannot spin for ever.
//
// The launcher is support/fake_launcher.h's; a supervisor that dies before
// it records itself is reported exited by the next wait (FakeEvents::exit).
#pragma once

#include <unistd.h>

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/events.h"
#include "support/fake_clock.h"
#include "support/fake_launcher.h"
#include "support/fake_processes.h"

namespace orrery::testing {

class FakeEvents final : public Events {
 public:
  static constexpr int kMaxWaits = 10'000;
  using Hook = std::function<void(std::optional<TimeMs> deadline)>;

  explicit FakeEvents(FakeClock& clock) : clock_(clock) {}

  Status watch_readable(int fd) override {
    readable_.insert(fd);
    return Ok{};
  }
  void unwatch_readable(int fd) override { readable_.erase(fd); }
  void watch_process(pid_t pid) override { watched_.insert(pid); }
  void watch_process(pid_t pid, int pidfd) override {
    if (pidfd >= 0) ::close(pidfd);
    watched_.insert(pid);
  }

  Result<LoopEvents> wait(std::optional<TimeMs> deadline) override {
    deadlines_.push_back(deadline);
    LoopEvents events;
    if (int(deadlines_.size()) > kMaxWaits) return stop(events, overran_);
    if (on_wait) on_wait(deadline);
    events.signals.swap(signals_);
    for (auto it = exits_.begin(); it != exits_.end();) {
      if (watched_.erase(*it) == 0) {
        ++it;
        continue;
      }
      events.exited.push_back(*it);
      it = exits_.erase(it);
    }
    if (events.any()) return events;
    if (!deadline) return stop(events, idle_);
    clock_.advance_to(*deadline);
    events.deadline = true;
    return events;
  }

  // What the test does at each wait, before the events are reported.
  Hook on_wait;
  void signal(int number) { signals_.push_back(number); }
  // `pid` exited: reported by the first wait at which it is watched.
  void exit(pid_t pid) { exits_.push_back(pid); }

  bool watching(pid_t pid) const { return watched_.count(pid) > 0; }
  const std::vector<std::optional<TimeMs>>& deadlines() const { return deadlines_; }
  bool overran() const { return overran_; }
  bool idle() const { return idle_; }

 private:
  Result<LoopEvents> stop(LoopEvents& events, bool& flag) {
    flag = true;
    events.signals = {SIGTERM};
    return events;
  }

  FakeClock& clock_;
  std::set<int> readable_;
  std::set<pid_t> watched_;
  std::vector<int> signals_;
  std::vector<pid_t> exits_;
  std::vector<std::optional<TimeMs>> deadlines_;
  bool overran_ = false;
  bool idle_ = false;
};

}  // namespace orrery::testing
