// Starting a target process in its own process group, with its output on
// pipes, and learning whether the exec itself failed.
//
// Invariants: the child is the leader of a new process group (pgid == pid),
// its stdin is the given text (from memory, never a file) or /dev/null, and every descriptor of the
// parent except the two pipes is closed in it; a failed chdir or exec is reported as an Error
// naming the directory or executable, never as a child that exits 127.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "core/loop.h"
#include "core/result.h"

namespace orrery {

struct SpawnedProcess {
  pid_t pid = -1;
  int stdout_fd = -1;  // read ends, owned by the caller
  int stderr_fd = -1;
};

// `stdin_text`, when given, is the target's whole stdin (an agent's prompt);
// otherwise stdin is /dev/null.
Result<SpawnedProcess> spawn_in_group(const std::vector<std::string>& argv,
                                      const std::vector<EnvVar>& env, const std::string& cwd,
                                      const std::optional<std::string>& stdin_text = {});

// The argv a target runs: its own, or /bin/sh -c LINE for a shell target.
std::vector<std::string> target_argv(const Target& target);

}  // namespace orrery
