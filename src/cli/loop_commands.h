// Loop management: add, ls, show, pause, resume, archive, unarchive, rename,
// rm, next (docs/cli.md).
#pragma once

#include <optional>
#include <string>

#include "cli/command.h"
#include "core/loop_spec.h"
#include "store/route_catalog.h"

namespace orrery::cli {

struct ListArgs {
  bool all = false;
  bool archived = false;
  std::string status;
  int limit = 1000;  // a page: at most this many loops (1-10000)
  int offset = 0;    // after skipping this many
};

struct LoopArgs {
  std::string loop;      // id, id prefix (>= 6) or name
  std::string new_name;  // rename
  int count = 5;         // next
  std::string from;      // next
  std::string tz;        // next: zone of --from and of the times shown
};

struct PruneArgs {
  std::string older_than;
  std::optional<int> keep;
  bool dry_run = false;
};

// The files a target names, checked at the edge when a loop is added or
// edited: --cwd is an existing directory, a prompt file is readable (and
// stored by its real path), an executable given as a path is executable.
Status check_target_files(Target& target, const PathBase& paths);
// The loop as `show` prints it (its JSON document with --json), the route
// it feeds named from `routes`.
void print_loop_document(const Context& context, const Loop& loop, RouteCatalog& routes);

Result<int> prune_runs(const PruneArgs& args, const Context& context);
Result<int> add_loop(const LoopSpec& spec, const Context& context);
Result<int> list_loops(const ListArgs& args, const Context& context);
Result<int> show_loop(const LoopArgs& args, const Context& context);
Result<int> pause_loop_command(const LoopArgs& args, const Context& context);
Result<int> resume_loop_command(const LoopArgs& args, const Context& context);
Result<int> archive_loop_command(const LoopArgs& args, const Context& context);
Result<int> unarchive_loop_command(const LoopArgs& args, const Context& context);
Result<int> rename_loop_command(const LoopArgs& args, const Context& context);
Result<int> remove_loop(const LoopArgs& args, const Context& context);
Result<int> next_slots(const LoopArgs& args, const Context& context);

}  // namespace orrery::cli
