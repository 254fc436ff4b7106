// Runs: trigger a loop now, list and show runs, read their logs, and the
// internal `supervise` command that owns one run (docs/execution.md, docs/cli.md).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "cli/command.h"
#include "core/run.h"
#include "store/store.h"

namespace orrery::cli {

struct TriggerArgs {
  std::string loop;
  bool wait = false;
  bool force = false;  // run now whatever the loop's overlap policy says
  // Run on this host even when it lacks the loop's --machine labels
  // (docs/daemon.md, "Runners").
  bool here = false;
};

struct RunsArgs {
  std::string loop;
  std::string status;
  int limit = 100;  // a page: at most this many runs (1-10000)
  int offset = 0;   // after skipping this many
};

struct RunArgs {
  std::string run;  // run show, logs: a run id (or, for logs, a loop)
  bool stderr_stream = false;
  bool follow = false;  // logs: keep printing while the run lives
  int token_fd = -1;    // supervise: the descriptor the claim token is read from
  // logs: a byte range of the log (the API's offset and length), cut back to
  // a character boundary; with --json the document says where the next starts.
  std::optional<std::int64_t> log_offset;
  std::optional<std::int64_t> log_length;
  std::string reason;  // run cancel
};

Result<int> trigger_loop(const TriggerArgs& args, const Context& context);
Result<int> list_runs(const RunsArgs& args, const Context& context);
Result<int> show_run(const RunArgs& args, const Context& context);
Result<int> show_logs(const RunArgs& args, const Context& context);
// `run cancel RUN`: a pending run is cancelled, a running one asked to stop.
Result<int> cancel_run_command(const RunArgs& args, const Context& context);
Result<int> supervise_run(const RunArgs& args, const Context& context);

}  // namespace orrery::cli
