// Starting a target process in its own process group, held before exec until
// the caller has recorded it, with its output on pipes (docs/execution.md).
//
// Invariants: the child is the leader of a new process group (pgid == pid);
// it runs nothing of the target until release() (a held child that is
// discarded exits without exec); its signal mask is empty and every signal
// disposition is the default; its stdin is the given text (from memory,
// never a file) or /dev/null; every descriptor of the parent except the
// two output pipes is closed at exec; the executable is looked up in the
// PATH of the target's own environment before the child exists. The child
// shares the caller's memory until it execs (clone with CLONE_VM, from a
// holder thread suspended until then): it makes only system calls, on a
// stack and a plan prepared for it, allocates nothing and runs no signal
// handler. A failed chdir or exec is reported by release() as an Error
// naming the directory or executable, never as a child that exits 127.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/loop.h"
#include "core/result.h"

namespace orrery {

// The thread that cloned a held child; joined once the child has execed or
// exited (release, discard), detached if the handle goes before that.
class HolderThread {
 public:
  explicit HolderThread(std::thread thread) : thread_(std::move(thread)) {}
  HolderThread(const HolderThread&) = delete;
  HolderThread& operator=(const HolderThread&) = delete;
  ~HolderThread() {
    if (thread_.joinable()) thread_.detach();
  }
  void join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::thread thread_;
};

struct SpawnedProcess {
  pid_t pid = -1;
  int stdout_fd = -1;  // read ends, owned by the caller
  int stderr_fd = -1;
  int release_fd = -1;                   // internal: writing one byte lets the child exec
  int report_fd = -1;                    // internal: the child's exec failure, if any
  std::shared_ptr<HolderThread> holder;  // internal
};

// Starts the held child. `stdin_text`, when given, is the target's whole
// stdin (an agent's prompt); otherwise stdin is /dev/null.
Result<SpawnedProcess> spawn_in_group(const std::vector<std::string>& argv,
                                      const std::vector<EnvVar>& env, const std::string& cwd,
                                      const std::optional<std::string>& stdin_text = {});

// Lets the held child exec its target. On a failed chdir or exec the child
// is reaped, its pipes closed, and the reason returned.
Status release(SpawnedProcess& process, const std::string& cwd, const std::string& executable);

// Kills and reaps a held child that must never run; closes its descriptors.
void discard(SpawnedProcess& process);

// Where `name` is found: itself when it contains a slash, otherwise the
// first executable regular file of that name in `path` (the target's PATH;
// relative entries are taken from `cwd`).
std::optional<std::string> find_executable(const std::string& name, const std::string& path,
                                           const std::string& cwd);

// The PATH a target's environment gives, or the system's default path.
std::string path_of(const std::vector<EnvVar>& env);

// The argv a target runs: its own, or /bin/sh -c LINE for a shell target.
std::vector<std::string> target_argv(const Target& target);

}  // namespace orrery
