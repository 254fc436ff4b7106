#include "engine/wake.h"

namespace orrery {

std::string wake_socket_path(const std::string& home) { return home + "/daemon.sock"; }

void notify_daemon(const std::string& /*home*/) {}  // placeholder until the daemon listens

}  // namespace orrery
