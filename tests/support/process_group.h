// Whether a process group still has a living member, for tests that check
// that orrery leaves nothing running behind.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <string>

#include "support/test_files.h"

namespace orrery::testing {

// kill(-pgid, 0) failing with ESRCH is the plain answer; a group that only has
// zombies left (dead, waiting for their new parent to reap them) is not alive
// either.
inline bool group_alive(pid_t pgid) {
  if (::kill(-pgid, 0) != 0) return errno != ESRCH;
  namespace fs = std::filesystem;
  std::error_code error;
  for (auto it = fs::directory_iterator("/proc", error); !error && it != fs::directory_iterator();
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = read_file(it->path() / "stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0, group = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d %d", &state, &ppid, &group) != 3) continue;
    if (group == pgid && state != 'Z') return true;
  }
  return false;
}

}  // namespace orrery::testing
