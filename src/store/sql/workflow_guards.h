// What every write of a workflow run's driver does first and last, inside
// its write transaction (docs/workflows.md, "One driver per run",
// "Journal"): the run's row is locked for update and the driver's engine
// lease checked live, so that two drivers' writes to one run take turns and
// a stale driver changes nothing; events are appended under that lock with
// the next sequences (max + 1), so two writers never take the same one.
#pragma once

#include <string>
#include <vector>

#include "store/sql/connection.h"
#include "store/workflow_engine.h"

namespace orrery::sql {

// not_found for no run; a conflict for a finished run ("workflow run R has
// finished (S)") or a lease that `fence` does not hold live at `now`
// ("engine lease lost").
Status hold_engine_lease(Connection& db, const EngineFence& fence, TimeMs now);

// Locks the run's row for update; false when there is no such run.
Result<bool> lock_workflow_run(Connection& db, const std::string& run_id);

Status append_workflow_events(Connection& db, const std::string& run_id,
                              const std::vector<NewWorkflowEvent>& events, TimeMs now);

}  // namespace orrery::sql
