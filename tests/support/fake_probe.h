// A ProcessProbe whose living processes the test decides: a process is alive
// when its pid is registered and, if a start time was recorded, the
// registered start time is the same. Its host is this machine's (so that it
// agrees with the system probe other parts of a test use), unless a test
// moves it to another (a runner on another host).
#pragma once

#include <unistd.h>

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
  std::string host_name() const override { return host_; }
  void set_host(std::string host) { host_ = std::move(host); }

 private:
  static std::string this_host() {
    char name[256] = {};
    return ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : "localhost";
  }

  std::map<int, std::optional<TimeMs>> alive_;
  std::string host_ = this_host();
};

}  // namespace orrery::testing
