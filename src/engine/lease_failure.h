// What a failed store write means to the daemon holding the lease
// (docs/daemon.md, "The lease" and "Failure behaviour"), for a heartbeat and
// for a tick alike:
// - "daemon lease lost" stops the daemon (exit 4), unless its own
//   heartbeats were failing on store errors: then the lease ran out under it
//   and it takes the lease again, which finds it lost if another daemon took
//   it meanwhile;
// - any other store error is retried after the backoff; the lease is kept
//   while heartbeats succeed.
#pragma once

#include "core/result.h"

namespace orrery {

enum class LeaseFailure {
  kRetry,        // log it, try again after the backoff
  kRetakeLease,  // take the lease again (a new generation), or find it lost
  kStop,         // the lease is another's: stop at once
};

LeaseFailure after_store_failure(const Error& error, bool heartbeat_failing);

}  // namespace orrery
