// What admission plans from (docs/admission.md, "Admission"): the queue a
// store read, with each route's limits and what holds the route as a whole —
// the goal of its workflow when that goal stops new runs (docs/goals.md, "A
// goal over a fleet"), else a provider cooldown of the accounts of its
// workflow's agent steps — for the daemon's tick and for `item show`'s
// account of why an item waits.
//
// Invariant: a route whose workflow version cannot be read is not held by a
// cooldown (its items are admitted and their runs fail visibly), never
// silently stuck.
#pragma once

#include <map>
#include <string>

#include "core/admission_plan.h"
#include "core/result.h"
#include "store/admission.h"
#include "store/cooldowns.h"
#include "store/goal_book.h"
#include "store/route_catalog.h"
#include "store/workflow_catalog.h"

namespace orrery {

// Route id -> what holds it: "goal G budget 6,000/6,000 tokens" (core/
// goal_hold.h), else "ACCOUNT cooldown until T" (core/admission_plan.h
// cooldown_hold). Reads no route when no goal stops a workflow and no
// cooldown is on.
using RouteHolds = std::map<std::string, std::string>;
Result<RouteHolds> route_holds(RouteCatalog& routes, WorkflowCatalog& workflows,
                               Cooldowns& cooldowns, GoalBook& goals, TimeMs now);

// The ids of the routes `holds` names (an AdmissionRead's held_routes).
std::vector<std::string> held_route_ids(const RouteHolds& holds);

AdmissionInput admission_input(AdmissionQueue queue, const RouteHolds& holds,
                               int global_max_running, TimeMs now);

}  // namespace orrery
