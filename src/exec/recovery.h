// Recovery of runs whose lease expired (docs/storage.md): the store abandons the
// runs whose supervisor is dead (and defers those whose supervisor lives);
// then a target that outlived its supervisor is killed with its whole
// process group, so nothing of an abandoned run keeps running.
#pragma once

#include "core/result.h"
#include "store/store.h"

namespace orrery {

Result<RecoveryResult> recover_runs(Store& store, const ProcessProbe& probe, TimeMs now,
                                    const RecoveryOptions& options, const Fence& fence);

}  // namespace orrery
