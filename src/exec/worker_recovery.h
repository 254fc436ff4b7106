// Workers whose holder is gone (docs/workers.md, "Leases and hold"): a
// worker in leased, starting or running whose lease expired, or whose
// attempt's supervisor on this host is known dead, is put on hold — never
// failed — with the reason, so that a person inspects its worktree and
// resumes or discards it. The workflow driver asks about the worker of each
// orphaned attempt; the daemon asks about every worker when it starts.
#pragma once

#include <string>

#include "core/result.h"
#include "core/worker.h"
#include "store/process_probe.h"
#include "store/store.h"

namespace orrery {

// The lease owner of a worker that `worker resume` leased for its step's
// next attempt: "resume:" and who resumed it.
inline constexpr std::string_view kResumeOwnerPrefix = "resume:";

// Puts the worker on hold when it is stranded; returns the worker as it is
// afterwards. A worker another process changed meanwhile is read again.
Result<Worker> hold_if_stranded(Store& store, const ProcessProbe& processes, const Worker& worker,
                                TimeMs now);
// Every stranded worker of this host (and every one whose lease expired);
// returns how many were put on hold.
Result<int> hold_stranded_workers(Store& store, const ProcessProbe& processes, TimeMs now);

}  // namespace orrery
