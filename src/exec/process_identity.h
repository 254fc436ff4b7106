// Process identity on Linux: a pid and the instant its process started, read
// from /proc, so that a pid reused by another process is not mistaken for the
// one recorded. Start times agree within kStartTimeToleranceMs (clock-tick
// rounding and boot-time drift).
#pragma once

#include <optional>
#include <string>

#include "core/run.h"
#include "store/process_probe.h"

namespace orrery {

inline constexpr DurationMs kStartTimeToleranceMs = 5000;

// The whole text read from `fd` (to its end), or nothing when a read fails:
// a /proc file of a process that ended after the open fails with ESRCH.
// Never throws (an iostream would, on a read error).
std::optional<std::string> read_open_file(int fd);
// The text of a /proc file, or nothing when it cannot be opened or read.
std::optional<std::string> read_proc_file(const std::string& path);

// The start time of pid, or nothing when no such process exists.
std::optional<TimeMs> process_start_time(int pid);
// This process, as recorded in runs and leases.
ProcessIdentity current_process();

// The probe the store uses in production.
class SystemProcessProbe final : public ProcessProbe {
 public:
  // Alive when the pid exists, is not a zombie and, if a start time was
  // recorded, its start time matches within the tolerance.
  bool is_alive(const ProcessIdentity& process) const override;
  std::string host_name() const override;
};

}  // namespace orrery
