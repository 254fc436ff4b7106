// Wake-ups (docs/daemon.md, "Wake-ups"): a command that changed what the
// daemon should do (add, resume, unarchive, trigger, edit, rm, run next-in,
// a supervisor's finish) tells the daemon after its commit, so nothing waits
// for a timer. The daemon listens on a Unix datagram socket, `daemon.sock`
// in the data directory (mode 0600); the message carries no data.
//
// Invariants: notifying never blocks and never fails the caller — no daemon
// running, a full socket buffer or a path too long are all ignored — because
// the database stays the only truth: a lost wake-up costs latency, never
// correctness.
#pragma once

#include <string>

namespace orrery {

// The wake-up socket's path for a data directory.
std::string wake_socket_path(const std::string& home);

// Tells a daemon listening for `home` to look again. Never fails.
void notify_daemon(const std::string& home);

}  // namespace orrery
