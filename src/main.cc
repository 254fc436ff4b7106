// orrery: one binary for the CLI (and later the daemon, supervisor and servers).
#include "cli/app.h"

int main(int argc, char** argv) { return orrery::cli::run(argc, argv); }
