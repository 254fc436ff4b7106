// DaemonLeases: the one daemon lease of a database (docs/daemon.md,
// "The lease"): whoever holds it schedules; every write it fences
// (store/fence.h) is refused once it is not live.
//
// Invariants: lease ids start with a generation that grows with every
// acquisition, so a stale holder is recognisable and ordered; a lease is
// taken only when absent, expired, or held by a dead process on this host.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/result.h"
#include "core/run.h"  // ProcessIdentity
#include "core/time.h"
#include "store/fence.h"

namespace orrery {

struct DaemonLease {
  std::string lease_id;
  std::int64_t generation = 0;
  ProcessIdentity holder;
  std::string host;
  TimeMs acquired_at = 0;
  TimeMs heartbeat_at = 0;  // released: when it was released
  TimeMs expires_at = 0;    // released: 0
};

// Whether the lease was given up (a clean stop), rather than left to expire.
inline bool was_released(const DaemonLease& lease) { return lease.expires_at == 0; }

class DaemonLeases {
 public:
  virtual ~DaemonLeases() = default;

  virtual Result<std::optional<DaemonLease>> acquire_daemon_lease(const ProcessIdentity& holder,
                                                                  DurationMs ttl_ms,
                                                                  TimeMs now) = 0;
  virtual Status heartbeat_daemon_lease(const std::string& lease_id, DurationMs ttl_ms,
                                        TimeMs now) = 0;
  // Gives the lease up at `now`: it is expired for everyone at once.
  virtual Status release_daemon_lease(const std::string& lease_id, TimeMs now) = 0;
  virtual Result<std::optional<DaemonLease>> get_daemon_lease() = 0;
  // "daemon lease lost" (a conflict) unless the fence's lease is live at `now`.
  virtual Status check_fence(const Fence& fence, TimeMs now) = 0;
};

}  // namespace orrery
