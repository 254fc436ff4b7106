// orrery: one binary for the CLI, the daemon, the supervisors and the server.
#include "cli/app.h"
#include "server/mcp_command.h"
#include "server/serve_command.h"

#if defined(__SANITIZE_ADDRESS__)
// Sanitizer builds only: libpqxx 6.4 leaks a libpq result when a query fails
// on a connection the server ended; a daemon that lived through a server
// restart would otherwise end with a leak report instead of its own status.
extern "C" const char* __lsan_default_suppressions() { return "leak:libpq.so\n"; }
#endif

int main(int argc, char** argv) {
  return orrery::cli::run(argc, argv,
                          {orrery::server::serve_commands(), orrery::server::mcp_commands()});
}
