// A ProcessControl whose processes the test decides (exec/process_control.h):
// a table of living processes with their start times and of living process
// groups. A process is alive when its pid is in the table and, if both start
// times are known, they are the same. Signals are recorded, never sent; a
// signal reaches (returns true for) a living process or group, and SIGKILL
// removes it (a group's leader, pid = pgid, with it). Signals are stamped
// with the time of a clock, when the test gives one. Its host is this
// machine's, unless a test moves it.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "exec/clock.h"
#include "exec/process_control.h"

namespace orrery::testing {

class FakeProcesses final : public ProcessControl {
 public:
  struct Signal {
    pid_t pid = 0;  // negative: a process group
    int signal = 0;
    TimeMs at = 0;  // by the clock given to stamp_with(), else 0
  };

  void start(const ProcessIdentity& process) { alive_[process.pid] = process.started_at; }
  void stop(pid_t pid) { alive_.erase(pid); }
  void start_group(int pgid) { groups_.insert(pgid); }
  void stop_group(int pgid) { groups_.erase(pgid); }
  bool group_alive(int pgid) const { return groups_.count(pgid) > 0; }
  void set_host(std::string host) { host_ = std::move(host); }
  void stamp_with(const Clock& clock) { clock_ = &clock; }

  bool is_alive(const ProcessIdentity& process) const override {
    const auto found = alive_.find(process.pid);
    if (found == alive_.end()) return false;
    return !process.started_at || !found->second || *process.started_at == *found->second;
  }
  std::string host_name() const override { return host_; }
  bool send_signal(pid_t pid, int signal) override {
    const bool reaches = pid < 0 ? group_alive(-pid) : alive_.count(pid) > 0;
    if (signal == 0) return reaches;  // asks whether it exists: nothing to record
    signals_.push_back({pid, signal, clock_ != nullptr ? clock_->wall_now() : 0});
    if (reaches && signal == SIGKILL) {
      stop(pid < 0 ? -pid : pid);
      if (pid < 0) stop_group(-pid);
    }
    return reaches;
  }
  std::optional<TimeMs> start_time(pid_t pid) const override {
    const auto found = alive_.find(pid);
    if (found == alive_.end()) return std::nullopt;
    return found->second;
  }

  // Every signal sent, in order (signal 0 excepted).
  const std::vector<Signal>& signals() const { return signals_; }
  bool signalled(pid_t pid, int signal) const {
    for (const Signal& sent : signals_) {
      if (sent.pid == pid && sent.signal == signal) return true;
    }
    return false;
  }

 private:
  static std::string this_host() {
    char name[256] = {};
    return ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : "localhost";
  }

  std::map<pid_t, std::optional<TimeMs>> alive_;
  std::set<int> groups_;
  std::vector<Signal> signals_;
  std::string host_ = this_host();
  const Clock* clock_ = nullptr;
};

}  // namespace orrery::testing
