// Releasing superseded workers (docs/fleet.md, "What is left behind"):
// once a work item has succeeded on a later attempt, the workers its
// earlier attempts left on hold are released — cancelled with a reason that
// names the item and the run it succeeded with, their worktrees removed,
// their branches kept until `worker discard`.
//
// Invariants: the decision is read from the store each time (a daemon
// killed between settling an item and releasing its workers releases them
// on its next start); only workers on hold are touched, only those whose
// run served an item that has succeeded with another run, and only on the
// host that holds their worktrees; one worker that cannot be released is
// logged and the others go on.
#pragma once

#include <string>

#include "core/result.h"
#include "engine/tick_context.h"
#include "exec/git.h"
#include "store/store.h"

namespace orrery {

// Releases every superseded held worker on `host`; how many were released.
Result<int> release_superseded_workers(Store& store, Git& git, const std::string& host, TimeMs now,
                                       const EventSink& log);

}  // namespace orrery
