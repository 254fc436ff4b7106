// Runs: trigger a loop now, list and show runs, read their logs, and the
// internal `supervise` command that owns one run (docs/execution.md, docs/cli.md).
#pragma once

#include <functional>
#include <string>

#include "cli/command.h"
#include "core/run.h"
#include "exec/supervisor_forker.h"
#include "store/store.h"

namespace orrery::cli {

struct TriggerArgs {
  std::string loop;
  bool wait = false;
  bool force = false;  // run now whatever the loop's overlap policy says
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
};

// A whole stream's log: the rotated, older part (<name>.1) first, when there
// is one, then the current file (docs/execution.md, "Logs").
std::string read_log(const std::string& path);

Result<int> trigger_loop(const TriggerArgs& args, const Context& context);
Result<int> list_runs(const RunsArgs& args, const Context& context);
Result<int> show_run(const RunArgs& args, const Context& context);
Result<int> show_logs(const RunArgs& args, const Context& context);
Result<int> supervise_run(const RunArgs& args, const Context& context);

// Prepares a supervisor the daemon's fork server forked
// (exec/supervisor_forker.h): opens the store the daemon's `globals` name;
// the runner then runs `supervise` as `orrery supervise` does, and returns
// its exit status, an error printed to stderr (the run's supervisor.log).
SupervisorForker::Runner prepare_forked_supervisor(const Globals& globals);

// The same preparation for any supervised work: `work` runs the request on
// the prepared store (the data directory given), its Error printed to stderr.
using ForkedWork =
    std::function<Status(Store& store, const std::string& home, const ForkRequest& request)>;
SupervisorForker::Runner prepare_forked_work(const Globals& globals, ForkedWork work);

}  // namespace orrery::cli
