#include "engine/lease_failure.h"

#include "engine/daemon_lease.h"

namespace orrery {

LeaseFailure after_store_failure(const Error& error, bool heartbeat_failing) {
  if (!is_lease_lost(error)) return LeaseFailure::kRetry;
  return heartbeat_failing ? LeaseFailure::kRetakeLease : LeaseFailure::kStop;
}

}  // namespace orrery
