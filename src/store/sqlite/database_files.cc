#include "store/sqlite/database_files.h"

#include <sys/stat.h>

#include <cerrno>

#include "store/data_dir.h"

namespace orrery::sqlite {

std::optional<FileIdentity> file_identity(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) return FileIdentity{info.st_dev, info.st_ino, false};
  if (errno == ENOENT || errno == ENOTDIR) return FileIdentity{0, 0, true};
  return std::nullopt;
}

DatabaseFiles::DatabaseFiles(const std::string& database_path) {
  // The directory first: when it went, so did everything in it.
  files_ = {
      {directory_of(database_path), "the database's directory", std::nullopt},
      {database_path, "the database file", std::nullopt},
      {database_path + "-wal", "the database's write-ahead log", std::nullopt},
      {database_path + "-shm", "the database's shared-memory index", std::nullopt},
  };
}

void DatabaseFiles::remember() {
  for (Watched& file : files_) file.identity = file_identity(file.path);
}

Status DatabaseFiles::check() const {
  for (const Watched& file : files_) {
    if (!file.identity || file.identity->missing) continue;
    const std::optional<FileIdentity> now = file_identity(file.path);
    if (!now || *now == *file.identity) continue;
    return unavailable_error(file.what + " " + file.path + " was " +
                             (now->missing ? "removed" : "replaced") +
                             " while orrery had the database open; the database is split "
                             "between processes, so this one stops writing (start it again "
                             "to use the files now there)");
  }
  return Ok{};
}

}  // namespace orrery::sqlite
