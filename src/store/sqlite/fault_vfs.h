// A fault-injecting SQLite VFS for tests: registered under its own name
// (kFaultVfsName), it delegates every call to the default VFS until a test
// arms it to fail the next write, sync, truncate or shared-memory map (the
// -shm file a WAL database needs even to be read) with a chosen result code
// (SQLITE_FULL for a full disk, SQLITE_IOERR_WRITE for a failed write, ...).
// Nothing uses it unless a store is opened with SqliteOptions::vfs naming it.
//
// Invariants: unarmed, it is indistinguishable from the default VFS; an
// armed fault fires at most `count` times, then the VFS delegates again.
#pragma once

#include <string>

namespace orrery::sqlite {

inline constexpr const char* kFaultVfsName = "orrery-fault";

enum class FaultOp { kWrite, kSync, kTruncate, kShmMap };

struct Fault {
  FaultOp op = FaultOp::kWrite;
  int code = 0;             // the SQLite result code the call returns
  int after = 0;            // calls of `op` that still succeed first
  int count = 1;            // calls that then fail
  std::string file_suffix;  // only files whose name ends so ("-wal"); empty: any
};

// Registers the VFS (idempotent; not as the default).
void register_fault_vfs();
void arm_fault(const Fault& fault);
void disarm_fault();
// How many calls failed since the last arm_fault.
int fault_hits();

}  // namespace orrery::sqlite
