// The daemon lease (docs/daemon.md, "The lease"): at most one daemon plans
// and claims on a database. It is taken at start, renewed every ttl/3 and
// released on a clean exit; every daemon write that could conflict is fenced
// by it, and fails with "daemon lease lost" once it is not live.
//
// Limits: the ttl is 3 s to 1 h (default 30 s).
#pragma once

#include <string>

#include "core/result.h"
#include "store/daemon_leases.h"

namespace orrery {

inline constexpr DurationMs kDefaultLeaseTtlMs = 30'000;
inline constexpr DurationMs kMinLeaseTtlMs = 3'000;
inline constexpr DurationMs kMaxLeaseTtlMs = 3'600'000;

// The ttl given as --lease-ttl TEXT, or a usage error naming the limits.
Result<DurationMs> parse_lease_ttl(const std::string& text);

// How often the lease is renewed: a third of its ttl.
inline DurationMs heartbeat_interval(DurationMs ttl_ms) { return ttl_ms / 3; }

// Takes the lease for this process, or a conflict naming its holder:
// "another daemon holds the lease: pid P on HOST since TIME".
Result<DaemonLease> acquire_lease(DaemonLeases& store, const ProcessIdentity& self,
                                  DurationMs ttl_ms, TimeMs now);

// Whether a store error means the lease is no longer this daemon's.
bool is_lease_lost(const Error& error);

}  // namespace orrery
