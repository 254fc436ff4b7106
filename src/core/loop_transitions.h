// Loop state transitions requested by users: pause, resume, archive,
// unarchive, rename. Pure: each takes the loop as read and returns it as it
// should be stored (updated_at = now), or a conflict naming the loop and its
// state when the transition is not allowed.
//
// Rules: pause needs an active loop; resume needs a paused, unarchived loop
// and schedules the next slot after now (the paused period is not caught
// up); archive pauses an unarchived loop and remembers its status; unarchive
// restores that status (an active loop gets its next slot after now). A once
// loop keeps its slot when rescheduled, or runs now if the slot passed; one
// whose slot was already claimed gets none. A new name follows the name rules
// of core/text.h.
#pragma once

#include <string>

#include "core/loop.h"
#include "core/result.h"

namespace orrery {

Result<Loop> pause_loop(Loop loop, TimeMs now);
Result<Loop> resume_loop(Loop loop, TimeMs now);
Result<Loop> archive_loop(Loop loop, TimeMs now);
Result<Loop> unarchive_loop(Loop loop, TimeMs now);
Result<Loop> rename_loop(Loop loop, const std::string& name, TimeMs now);

}  // namespace orrery
