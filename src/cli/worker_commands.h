// Worker and merge queue commands (docs/workers.md, docs/cli.md "Workers and
// the merge queue"): `orrery worker ls | show | resume | discard | enqueue`,
// `orrery queue ls | show | config | retry | drop`, and the internal
// `orrery drive-queue REPO --target BRANCH` the daemon starts. The logic is
// exec/worker_actions.h's and engine/merge_driver.h's; these parse and print.
#pragma once

#include <optional>
#include <string>

#include "cli/command.h"

namespace orrery::cli {

struct WorkerArgs {
  std::string id;      // W or ENTRY
  std::string repo;    // worker ls --repo, queue ls [REPO], queue config REPO, drive-queue REPO
  std::string state;   // ls --state
  std::string target;  // queue config --target, drive-queue --target
  std::optional<std::string> verify;    // queue config --verify
  std::optional<std::string> strategy;  // queue config --strategy
  int token_fd = -1;                    // drive-queue
  int limit = 1000;                     // worker ls, queue ls
  int offset = 0;                       // worker ls, queue ls
};

Result<int> list_workers_command(const WorkerArgs& args, const Context& context);
Result<int> show_worker_command(const WorkerArgs& args, const Context& context);
Result<int> resume_worker_command(const WorkerArgs& args, const Context& context);
Result<int> discard_worker_command(const WorkerArgs& args, const Context& context);
Result<int> enqueue_worker_command(const WorkerArgs& args, const Context& context);

Result<int> list_queue_command(const WorkerArgs& args, const Context& context);
Result<int> show_entry_command(const WorkerArgs& args, const Context& context);
Result<int> queue_config_command(const WorkerArgs& args, const Context& context);
Result<int> retry_entry_command(const WorkerArgs& args, const Context& context);
Result<int> drop_entry_command(const WorkerArgs& args, const Context& context);
Result<int> drive_queue_command(const WorkerArgs& args, const Context& context);

}  // namespace orrery::cli
