// Releasing superseded workers (docs/fleet.md, "What is left behind"):
// when a work item succeeds on a later attempt, the workers its earlier
// attempts left on hold are released — cancelled with a reason that names
// the item and the run it succeeded with, their worktrees removed, their
// branches kept until `worker discard`.
//
// Invariants: only workers on hold are touched, only those of runs that
// served this item other than the one it succeeded with, and only on the
// host that holds their worktrees; one worker that cannot be released is
// logged and the others go on.
#pragma once

#include <string>

#include "core/result.h"
#include "engine/admitting.h"
#include "exec/git.h"
#include "store/store.h"

namespace orrery {

// Releases the held workers of `item`'s earlier attempts on `host`; how
// many were released.
Result<int> release_superseded_workers(Store& store, Git& git, const std::string& host,
                                       const SucceededItem& item, TimeMs now, const EventSink& log);

}  // namespace orrery
