// ProcessControl: the seam for processes (docs/architecture.md, "Seams"):
// whether a recorded process still lives (ProcessProbe), its start time,
// and signals to a process or a process group. The daemon, the workflow
// driver and recovery act on processes only through it, so that tests give
// fake processes and nothing is signalled for real.
#pragma once

#include <sys/types.h>

#include <optional>

#include "core/run.h"
#include "core/time.h"
#include "store/process_probe.h"

namespace orrery {

class ProcessControl : public ProcessProbe {
 public:
  // Sends `signal` to the process `pid`, or to the process group -pid when
  // pid is negative (as kill(2)); true when it was sent.
  virtual bool send_signal(pid_t pid, int signal) = 0;
  // When the process started; nothing when there is no such process.
  virtual std::optional<TimeMs> start_time(pid_t pid) const = 0;
};

// The machine's processes (/proc and kill(2)).
class SystemProcessControl final : public ProcessControl {
 public:
  bool is_alive(const ProcessIdentity& process) const override;
  std::string host_name() const override;
  bool send_signal(pid_t pid, int signal) override;
  std::optional<TimeMs> start_time(pid_t pid) const override;
};

// Sends SIGTERM to the run's supervisor when it is alive on this host, which
// stops the target and finishes the run cancelled; true when it was sent. A
// run of another host is never signalled from here.
bool stop_local_supervisor(const Run& run, ProcessControl& processes);

// One for the whole process: it holds no state.
SystemProcessControl& system_processes();

}  // namespace orrery
