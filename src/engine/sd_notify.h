// The systemd notification protocol (docs/daemon.md, "systemd"): a service
// of Type=notify tells systemd it is ready, alive (the watchdog) and
// stopping by sending one datagram of text ("READY=1") to the Unix socket
// named by $NOTIFY_SOCKET — a path, or an abstract address written with a
// leading '@'. Written here directly: no libsystemd.
//
// Invariant: notifying never fails the daemon; without $NOTIFY_SOCKET it
// does nothing.
#pragma once

#include <optional>
#include <string>

#include "core/time.h"

namespace orrery {

// Sends `state` to the socket `address` ("/run/..." or "@abstract");
// false when it could not be sent.
bool sd_notify_to(const std::string& address, const std::string& state);

// Sends `state` to $NOTIFY_SOCKET when it is set.
void sd_notify(const std::string& state);

// How often systemd expects WATCHDOG=1: half of $WATCHDOG_USEC, when it is
// set (and $WATCHDOG_PID, if set, is this process); nothing otherwise.
std::optional<DurationMs> watchdog_interval();

}  // namespace orrery
