#include "store/sqlite/fault_vfs.h"

#include <sqlite3.h>

#include <cstring>
#include <mutex>

namespace orrery::sqlite {
namespace {

// An open file: our header, then the default VFS's file object.
struct FaultFile {
  sqlite3_file base;
  sqlite3_file* real;
  const char* name;
};

std::mutex g_mutex;
Fault g_fault;
bool g_armed = false;
int g_hits = 0;
sqlite3_vfs* g_real = nullptr;
sqlite3_vfs g_vfs;

sqlite3_file* real(sqlite3_file* file) { return reinterpret_cast<FaultFile*>(file)->real; }

bool ends_with(const char* name, const std::string& suffix) {
  if (suffix.empty()) return true;
  if (name == nullptr) return false;
  const size_t size = std::strlen(name);
  return size >= suffix.size() &&
         suffix.compare(0, suffix.size(), name + size - suffix.size()) == 0;
}

// The code the call must fail with, or SQLITE_OK.
int injected(sqlite3_file* file, FaultOp op) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_armed || g_fault.op != op) return SQLITE_OK;
  if (!ends_with(reinterpret_cast<FaultFile*>(file)->name, g_fault.file_suffix)) return SQLITE_OK;
  if (g_fault.after > 0) {
    --g_fault.after;
    return SQLITE_OK;
  }
  if (g_fault.count <= 0) return SQLITE_OK;
  --g_fault.count;
  ++g_hits;
  return g_fault.code;
}

int fault_close(sqlite3_file* file) {
  sqlite3_file* inner = real(file);
  return inner->pMethods ? inner->pMethods->xClose(inner) : SQLITE_OK;
}
int fault_read(sqlite3_file* file, void* buffer, int amount, sqlite3_int64 offset) {
  return real(file)->pMethods->xRead(real(file), buffer, amount, offset);
}
int fault_write(sqlite3_file* file, const void* buffer, int amount, sqlite3_int64 offset) {
  if (const int rc = injected(file, FaultOp::kWrite); rc != SQLITE_OK) return rc;
  return real(file)->pMethods->xWrite(real(file), buffer, amount, offset);
}
int fault_truncate(sqlite3_file* file, sqlite3_int64 size) {
  if (const int rc = injected(file, FaultOp::kTruncate); rc != SQLITE_OK) return rc;
  return real(file)->pMethods->xTruncate(real(file), size);
}
int fault_sync(sqlite3_file* file, int flags) {
  if (const int rc = injected(file, FaultOp::kSync); rc != SQLITE_OK) return rc;
  return real(file)->pMethods->xSync(real(file), flags);
}
int fault_file_size(sqlite3_file* file, sqlite3_int64* size) {
  return real(file)->pMethods->xFileSize(real(file), size);
}
int fault_lock(sqlite3_file* file, int level) {
  return real(file)->pMethods->xLock(real(file), level);
}
int fault_unlock(sqlite3_file* file, int level) {
  return real(file)->pMethods->xUnlock(real(file), level);
}
int fault_check_reserved(sqlite3_file* file, int* out) {
  return real(file)->pMethods->xCheckReservedLock(real(file), out);
}
int fault_file_control(sqlite3_file* file, int op, void* arg) {
  return real(file)->pMethods->xFileControl(real(file), op, arg);
}
int fault_sector_size(sqlite3_file* file) { return real(file)->pMethods->xSectorSize(real(file)); }
int fault_device(sqlite3_file* file) {
  return real(file)->pMethods->xDeviceCharacteristics(real(file));
}
int fault_shm_map(sqlite3_file* file, int region, int size, int extend, void volatile** out) {
  if (const int rc = injected(file, FaultOp::kShmMap); rc != SQLITE_OK) return rc;
  return real(file)->pMethods->xShmMap(real(file), region, size, extend, out);
}
int fault_shm_lock(sqlite3_file* file, int offset, int n, int flags) {
  return real(file)->pMethods->xShmLock(real(file), offset, n, flags);
}
void fault_shm_barrier(sqlite3_file* file) { real(file)->pMethods->xShmBarrier(real(file)); }
int fault_shm_unmap(sqlite3_file* file, int delete_flag) {
  return real(file)->pMethods->xShmUnmap(real(file), delete_flag);
}
int fault_fetch(sqlite3_file* file, sqlite3_int64 offset, int amount, void** out) {
  return real(file)->pMethods->xFetch(real(file), offset, amount, out);
}
int fault_unfetch(sqlite3_file* file, sqlite3_int64 offset, void* page) {
  return real(file)->pMethods->xUnfetch(real(file), offset, page);
}

const sqlite3_io_methods kMethods = {
    3,
    fault_close,
    fault_read,
    fault_write,
    fault_truncate,
    fault_sync,
    fault_file_size,
    fault_lock,
    fault_unlock,
    fault_check_reserved,
    fault_file_control,
    fault_sector_size,
    fault_device,
    fault_shm_map,
    fault_shm_lock,
    fault_shm_barrier,
    fault_shm_unmap,
    fault_fetch,
    fault_unfetch,
};

int fault_open(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  auto* ours = reinterpret_cast<FaultFile*>(file);
  ours->real = reinterpret_cast<sqlite3_file*>(ours + 1);
  ours->name = name;
  ours->base.pMethods = nullptr;
  const int rc = g_real->xOpen(g_real, name, ours->real, flags, out_flags);
  // Our methods only once the real file is open: SQLite closes what it opened.
  if (ours->real->pMethods != nullptr) ours->base.pMethods = &kMethods;
  return rc;
}

}  // namespace

void register_fault_vfs() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_real = sqlite3_vfs_find(nullptr);
    g_vfs = *g_real;
    g_vfs.pNext = nullptr;
    g_vfs.zName = kFaultVfsName;
    g_vfs.szOsFile = int(sizeof(FaultFile)) + g_real->szOsFile;
    g_vfs.xOpen = fault_open;
    sqlite3_vfs_register(&g_vfs, 0);
  });
}

void arm_fault(const Fault& fault) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_fault = fault;
  g_armed = true;
  g_hits = 0;
}

void disarm_fault() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_armed = false;
}

int fault_hits() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_hits;
}

}  // namespace orrery::sqlite
