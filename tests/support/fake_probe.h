// A ProcessProbe whose living processes the test decides: a process is alive
// when its pid is registered and, if a start time was recorded, the
// registered start time is the same.
#pragma once

#include <map>
#include <string>

#include "store/store.h"

namespace orrery::testing {

class FakeProbe final : public ProcessProbe {
 public:
  void start(const ProcessIdentity& process) { alive_[process.pid] = process.started_at; }
  void stop(int pid) { alive_.erase(pid); }

  bool is_alive(const ProcessIdentity& process) const override {
    const auto found = alive_.find(process.pid);
    if (found == alive_.end()) return false;
    return !process.started_at || !found->second || *process.started_at == *found->second;
  }
  std::string host_name() const override { return "test-host"; }

 private:
  std::map<int, std::optional<TimeMs>> alive_;
};

}  // namespace orrery::testing
