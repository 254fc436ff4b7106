// The PostgreSQL client library, loaded only when a PostgreSQL database is
// used (docs/storage.md, "The PostgreSQL client library").
//
// orrery links libpqxx statically and not libpq: every libpq function that
// libpqxx and orrery call is defined in libpq_library.cc and forwards to the
// library loaded with dlopen on first use. A process that only ever touches
// SQLite — every CLI command, the daemon, each supervisor — therefore maps no
// libpq, OpenSSL, Kerberos or LDAP, and pays neither their loading nor their
// pages at each fork.
//
// Invariants: the library is loaded at most once per process, whole (every
// function resolved) or not at all; ORRERY_LIBPQ names it when set (a path or
// a name the dynamic loader searches), else "libpq.so.5"; code that may meet a
// missing library calls load_libpq() first and reports its Error; a
// forwarding function reached without a loaded library (a bug) prints the
// reason and aborts rather than call through a null pointer.
#pragma once

#include "core/result.h"

namespace orrery::postgres {

// Loads the library once; later calls return the first call's outcome. The
// Error names the library, the loader's reason and how to install it.
Status load_libpq();

// Whether load_libpq() succeeds (loading it if it has not been tried).
bool libpq_available();

}  // namespace orrery::postgres
