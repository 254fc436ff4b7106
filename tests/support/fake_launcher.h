// FakeLauncher: the Launcher of tests (exec/launcher.h). It records each
// launch; a supervisor gets the next fake pid (from 5001) and lives in
// FakeProcesses, records itself and its target (pid and group: its pid +
// 100) on the claim, as a forked one does — unless the test scripted the
// next launch to fail (the work is failed with the reason, as the Launcher
// contract says) or to die before it records itself (the test's `died` is
// told its pid).
#pragma once

#include <unistd.h>

#include <cstddef>
#include <deque>
#include <functional>
#include <vector>

#include "exec/launcher.h"
#include "support/fake_clock.h"
#include "support/fake_processes.h"

namespace orrery::testing {

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

  // `died` is told the pid of a supervisor that dies before it records itself.
  FakeLauncher(ClaimLedger& ledger, FakeClock& clock, FakeProcesses& processes,
               std::function<void(pid_t)> died = {})
      : ledger_(ledger), clock_(clock), processes_(processes), died_(std::move(died)) {}

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
      if (died_) died_(launch.pid);
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
  std::function<void(pid_t)> died_;
  pid_t next_pid_ = kFirstPid;
  std::vector<Launch> launches_;
};

}  // namespace orrery::testing
