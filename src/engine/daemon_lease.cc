#include "engine/daemon_lease.h"

#include "core/duration.h"

namespace orrery {

Result<DurationMs> parse_lease_ttl(const std::string& text) {
  auto ttl = parse_duration_option(text, "--lease-ttl", kMaxLeaseTtlMs);
  if (!ttl) return ttl.error();
  if (*ttl < kMinLeaseTtlMs) {
    return usage_error("--lease-ttl " + text + " is shorter than the minimum of " +
                       format_duration(kMinLeaseTtlMs) + " (give 3s to 1h; default 30s)");
  }
  return *ttl;
}

Result<DaemonLease> acquire_lease(DaemonLeases& store, const ProcessIdentity& self,
                                  DurationMs ttl_ms, TimeMs now) {
  auto acquired = store.acquire_daemon_lease(self, ttl_ms, now);
  if (!acquired) return acquired.error();
  if (acquired->has_value()) return **acquired;
  auto holder = store.get_daemon_lease();
  if (!holder) return holder.error();
  if (!holder->has_value()) return conflict_error("another daemon holds the lease");
  const DaemonLease& lease = **holder;
  return conflict_error("another daemon holds the lease: pid " + std::to_string(lease.holder.pid) +
                        " on " + lease.host + " since " + format_time(lease.acquired_at));
}

bool is_lease_lost(const Error& error) {
  return error.code == ErrorCode::kConflict &&
         error.message.find("daemon lease lost") != std::string::npos;
}

}  // namespace orrery
