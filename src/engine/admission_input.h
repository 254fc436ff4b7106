// What admission plans from (docs/admission.md, "Admission"): the queue a
// store read, with each route's limits and the provider cooldown that holds
// it (the accounts of its workflow's agent steps), for the daemon's tick and
// for `item show`'s account of why an item waits.
//
// Invariant: a route whose workflow version cannot be read is not held by a
// cooldown (its items are admitted and their runs fail visibly), never
// silently stuck.
#pragma once

#include "core/admission_plan.h"
#include "core/result.h"
#include "store/admission.h"
#include "store/cooldowns.h"
#include "store/workflow_catalog.h"

namespace orrery {

Result<AdmissionInput> admission_input(WorkflowCatalog& workflows, Cooldowns& cooldowns,
                                       AdmissionQueue queue, int global_max_running, TimeMs now);

}  // namespace orrery
