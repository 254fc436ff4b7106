#include "exec/recovery.h"

#include <signal.h>

namespace orrery {

Result<RecoveryResult> recover_runs(Store& store, const ProcessProbe& probe, TimeMs now,
                                    const RecoveryOptions& options, const Fence& fence) {
  auto recovered = store.recover_expired_runs(now, options, fence);
  if (!recovered) return recovered.error();
  for (const Run& run : recovered->abandoned) {
    // Only the process recorded for this run: a reused pid is someone else's.
    if (run.target && run.pgid && probe.is_alive(*run.target)) ::kill(-*run.pgid, SIGKILL);
  }
  return recovered;
}

}  // namespace orrery
