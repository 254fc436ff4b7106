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

SystemProcessControl& system_processes() {
  static SystemProcessControl processes;
  return processes;
}

}  // namespace orrery
