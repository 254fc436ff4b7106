// ProcessProbe: whether a recorded process is still the one that was
// recorded (its pid and start time, so a reused pid does not count), and
// the host this process runs on. The store asks it when a claim or recovery
// depends on a supervisor being alive; tests give a fake.
#pragma once

#include <string>

#include "core/run.h"  // ProcessIdentity

namespace orrery {

class ProcessProbe {
 public:
  virtual ~ProcessProbe() = default;
  virtual bool is_alive(const ProcessIdentity& process) const = 0;
  virtual std::string host_name() const = 0;
};

}  // namespace orrery
