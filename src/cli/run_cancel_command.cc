// `orrery run cancel RUN` (docs/cli.md): a pending run is cancelled at once;
// a running one is asked to stop. Its supervisor gets SIGTERM from here when
// it lives on this host, and from the runner that holds the run otherwise
// (docs/daemon.md, "Cancelling a run"). A finished run is left as it is: a
// conflict naming its status.
#include <nlohmann/json.hpp>

#include "cli/run_commands.h"
#include "cli/store_access.h"
#include "core/exit_codes.h"
#include "core/text.h"
#include "exec/process_control.h"
#include "exec/wake.h"
#include "views/document_text.h"

namespace orrery::cli {

Result<int> cancel_run_command(const RunArgs& args, const Context& context) {
  if (auto reason = check_cancel_reason(args.reason); !reason) return reason.error();
  auto opened = open_store(context);
  if (!opened) return opened.error();
  Store& store = *opened->store;
  auto run = store.resolve_run(args.run);
  if (!run) return run.error();
  if (is_terminal(run->status)) {
    return conflict_error("run " + run->id + " is " + run_status_name(run->status) +
                          " already; only a pending, queued or running run can be cancelled");
  }
  const std::string reason = args.reason.empty() ? "cancelled on request" : args.reason;
  auto status = store.request_cancel(run->id, reason, context.now);
  if (!status) return status.error();
  if (*status == RunStatus::kRunning) (void)stop_local_supervisor(*run, system_processes());
  notify_daemon(opened->home);
  if (context.globals.json) {
    *context.out << json_text({{"run_id", run->id},
                               {"status", run_status_name(*status)},
                               {"requested", *status == RunStatus::kRunning}})
                 << '\n';
  } else if (*status == RunStatus::kRunning) {
    *context.out << "asked run " << run->id << " to stop; its runner cancels it\n";
  } else {
    *context.out << "run " << run->id << " is " << run_status_name(*status) << '\n';
  }
  return kExitOk;
}

}  // namespace orrery::cli
