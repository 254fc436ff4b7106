#include "engine/replace_stop.h"

namespace orrery {

ReplaceStop how_to_stop_replaced(const Run& run, const std::string& host, bool supervisor_alive) {
  if (run.status == RunStatus::kPending || !runs_on_host(run, host)) {
    return ReplaceStop::kCancelInStore;
  }
  if (run.supervisor && supervisor_alive) return ReplaceStop::kSignalSupervisor;
  if (run.pgid && *run.pgid > 1) return ReplaceStop::kStopGroup;
  return ReplaceStop::kNothing;
}

}  // namespace orrery
