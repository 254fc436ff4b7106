// Running a short helper command to its end (docs/workers.md): git, and a
// merge queue's verification command. The seam the worker code takes, so
// that what runs can be faked (exec/git.h takes a CommandRunner).
//
// Invariants: the command runs in its own process group, with the given
// environment and directory and /dev/null as stdin; past its timeout the
// whole group is killed (SIGKILL) and the result says timed out; output
// beyond the caps is cut (the first max_stdout bytes of stdout are kept, the
// last max_tail bytes of both streams together), never read into memory
// without bound; the group is killed and reaped before run() returns, and
// it cannot outlive the caller either: a guard in it kills it when the
// caller dies (exec/group_guard.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/loop.h"
#include "core/result.h"
#include "core/time.h"

namespace orrery {

struct CommandRequest {
  std::vector<std::string> argv;
  std::vector<EnvVar> env;
  std::string cwd;
  std::optional<DurationMs> timeout_ms;
  std::size_t max_stdout = 16 << 20;  // bytes of stdout kept from the start
  std::size_t max_tail = 16 << 10;    // bytes of stdout+stderr kept from the end
  // Called about every tick_ms while the command runs (a lease kept alive).
  std::function<void()> on_tick;
  DurationMs tick_ms = 0;
};

struct CommandResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  bool timed_out = false;
  std::string stdout_text;  // at most max_stdout bytes
  std::string tail;         // the last max_tail bytes of both streams, as they came
  DurationMs duration_ms = 0;
  bool succeeded() const { return exit_code == 0 && !timed_out; }
};

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // An Error when the command could not start (no such executable or
  // directory); otherwise how it ended.
  virtual Result<CommandResult> run(const CommandRequest& request) = 0;
};

CommandRunner& system_commands();

// This process's environment, as pairs.
std::vector<EnvVar> process_environment();

}  // namespace orrery
