#include "exec/process_control.h"

#include <signal.h>

#include "exec/process_identity.h"

namespace orrery {

bool SystemProcessControl::is_alive(const ProcessIdentity& process) const {
  return SystemProcessProbe().is_alive(process);
}

std::string SystemProcessControl::host_name() const { return SystemProcessProbe().host_name(); }

bool SystemProcessControl::send_signal(pid_t pid, int signal) { return ::kill(pid, signal) == 0; }

std::optional<TimeMs> SystemProcessControl::start_time(pid_t pid) const {
  return process_start_time(pid);
}

bool stop_local_supervisor(const Run& run, ProcessControl& processes) {
  if (!runs_on_host(run, processes.host_name())) return false;
  if (!run.supervisor || !processes.is_alive(*run.supervisor)) return false;
  return processes.send_signal(run.supervisor->pid, SIGTERM);
}

SystemProcessControl& system_processes() {
  static SystemProcessControl processes;
  return processes;
}

}  // namespace orrery
