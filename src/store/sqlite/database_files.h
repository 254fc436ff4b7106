// DatabaseFiles: the files a SQLite database in WAL mode lives in — the
// database, its write-ahead log (`-wal`), its shared-memory index (`-shm`)
// and the directory that holds them — as they were when a process opened
// it (docs/storage.md, "Files").
//
// Invariant: a process that keeps the database open sees the same files
// (device and inode) for as long as it does. One removed, or replaced by
// another at its path, splits the database: this process goes on in its own
// view while every process that opens the path now sees another. check()
// names the first such file; a file that was absent when remembered is not
// checked (SQLite creates `-wal` and `-shm` with the first read in WAL mode).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace orrery::sqlite {

// The file at a path: its device and inode, or that there is none.
struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  bool missing = false;  // no file at the path
  friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};

// What is at `path` now; nothing when it cannot be told (no permission).
std::optional<FileIdentity> file_identity(const std::string& path);

class DatabaseFiles {
 public:
  explicit DatabaseFiles(const std::string& database_path);

  // Records what is at each path now.
  void remember();
  // Ok while every remembered file is still there; else an unavailable
  // error naming the first one removed or replaced and what to do.
  Status check() const;

 private:
  struct Watched {
    std::string path;
    std::string what;  // "the database file", "its write-ahead log", ...
    std::optional<FileIdentity> identity;
  };
  std::vector<Watched> files_;
};

}  // namespace orrery::sqlite
