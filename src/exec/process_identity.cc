#include "exec/process_identity.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace orrery {
namespace {

std::optional<TimeMs> boot_time_ms() {
  const std::optional<std::string> text = read_proc_file("/proc/stat");
  if (!text) return std::nullopt;
  for (size_t start = 0; start < text->size();) {
    size_t end = text->find('\n', start);
    if (end == std::string::npos) end = text->size();
    const std::string line = text->substr(start, end - start);
    if (line.rfind("btime ", 0) == 0) {
      return TimeMs(std::strtoll(line.c_str() + 6, nullptr, 10)) * 1000;
    }
    start = end + 1;
  }
  return std::nullopt;
}

std::string stat_of(int pid) {
  return read_proc_file("/proc/" + std::to_string(pid) + "/stat").value_or("");
}

// A zombie has ended; only its parent has not reaped it yet.
bool is_zombie(int pid) {
  const std::string text = stat_of(pid);
  const size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

// Field 22 of /proc/<pid>/stat, counted after the parenthesised command name.
std::optional<long long> start_ticks(int pid) {
  const std::string text = stat_of(pid);
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  for (int index = 3; fields >> field; ++index) {
    if (index == 22) return std::strtoll(field.c_str(), nullptr, 10);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> read_open_file(int fd) {
  std::string text;
  char buffer[4096];
  while (true) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return std::nullopt;
    if (got == 0) return text;
    text.append(buffer, size_t(got));
  }
}

std::optional<std::string> read_proc_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<std::string> text = read_open_file(fd);
  ::close(fd);
  return text;
}

std::optional<TimeMs> process_start_time(int pid) {
  if (pid <= 0) return std::nullopt;
  static const std::optional<TimeMs> boot = boot_time_ms();
  static const long ticks_per_second = sysconf(_SC_CLK_TCK);
  const auto ticks = start_ticks(pid);
  if (!ticks || !boot || ticks_per_second <= 0) return std::nullopt;
  return *boot + TimeMs(*ticks * 1000 / ticks_per_second);
}

ProcessIdentity current_process() {
  const int pid = int(getpid());
  return {pid, process_start_time(pid)};
}

bool SystemProcessProbe::is_alive(const ProcessIdentity& process) const {
  if (process.pid <= 0) return false;
  if (kill(process.pid, 0) != 0 && errno == ESRCH) return false;
  if (is_zombie(process.pid)) return false;  // dead, not yet reaped by its parent
  if (!process.started_at) return true;      // nothing to compare: assume it is the one
  const auto actual = process_start_time(process.pid);
  if (!actual) return false;
  return std::llabs(*actual - *process.started_at) <= kStartTimeToleranceMs;
}

std::string SystemProcessProbe::host_name() const {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

}  // namespace orrery
