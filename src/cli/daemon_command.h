// `orrery daemon [--once] [--lease-ttl D] [--max-running N] [--log FILE]
// [--label LABEL=VALUE]...`
// (docs/daemon.md): runs loops on their schedules in the foreground, or with
// --once runs what is due as of its start, waits for those runs and prints
// them (exit 1 when one did not succeed).
#pragma once

#include <string>
#include <vector>

#include "cli/command.h"

namespace orrery::cli {

struct DaemonArgs {
  bool once = false;
  std::string lease_ttl;       // empty: the default (30s)
  int max_running = 64;        // 1-10000
  int global_max_running = 0;  // work items at once over every route; 0: no cap
  std::string log;             // empty: stderr
  // --label LABEL=VALUE, repeatable (core/runner_labels.h).
  std::vector<std::string> labels;
};

Result<int> daemon_command(const DaemonArgs& args, const Context& context);

}  // namespace orrery::cli
