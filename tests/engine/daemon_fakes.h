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
// FakeLauncher: records each launch; a supervisor gets the next fake pid
// (from 5001) and lives in FakeProcesses, records itself and its target
// (pid and group: its pid + 100) on the claim, as a forked one does — unless
// the test scripted the next launch to fail (the work is failed with the
// reason, as the Launcher contract says) or to die before it records
// itself (reported exited by the next wait).
#pragma once

#include <unistd.h>

#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/events.h"
#include "exec/launcher.h"
#include "support/fake_clock.h"
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

class FakeLauncher final : public Launcher {
 public:
  enum class Next { kRuns, kFails, kDiesBeforeRecording };
  struct Launch {
    WorkLaunch work;
    pid_t pid = 0;                   // 0: it failed
    TimeMs at = 0;                   // by the fake clock
    std::size_t signals_before = 0;  // signals sent before it
  };
  static constexpr pid_t kFirstPid = 5001;
  static constexpr pid_t kTargetOffset = 100;

  FakeLauncher(ClaimLedger& ledger, FakeClock& clock, FakeProcesses& processes, FakeEvents& events)
      : ledger_(ledger), clock_(clock), processes_(processes), events_(events) {}

  Result<StartedSupervisor> launch(const WorkLaunch& work) override {
    const Next next = script.empty() ? Next::kRuns : script.front();
    if (!script.empty()) script.pop_front();
    Launch launch{work, 0, clock_.wall_now(), processes_.signals().size()};
    if (next == Next::kFails) {
      launches_.push_back(launch);
      return fail_unstarted(ledger_, work.claim, internal_error("fork failed (test)"),
                            clock_.wall_now());
    }
    launch.pid = next_pid_++;
    launches_.push_back(launch);
    const ProcessIdentity supervisor{launch.pid, clock_.wall_now()};
    if (next == Next::kDiesBeforeRecording) {
      events_.exit(launch.pid);
    } else {
      processes_.start(supervisor);
      const ProcessIdentity target{launch.pid + kTargetOffset, clock_.wall_now()};
      processes_.start(target);
      processes_.start_group(target.pid);
      (void)ledger_.record_process(work.claim, target, target.pid, supervisor, clock_.wall_now());
    }
    return StartedSupervisor{launch.pid, -1, supervisor.started_at};
  }

  // What the next launches do, in order; then each runs.
  std::deque<Next> script;
  const std::vector<Launch>& launches() const { return launches_; }

 private:
  ClaimLedger& ledger_;
  FakeClock& clock_;
  FakeProcesses& processes_;
  FakeEvents& events_;
  pid_t next_pid_ = kFirstPid;
  std::vector<Launch> launches_;
};

}  // namespace orrery::testing
