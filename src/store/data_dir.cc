#include "store/data_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace orrery {
namespace {

// Creates what is missing of `path`, parents first; only a directory this
// call created is given its mode (0700 against any umask).
Status make_directory(const std::string& path) {
  if (path.empty()) return Ok{};
  struct stat info {};
  if (stat(path.c_str(), &info) == 0) {
    if (!S_ISDIR(info.st_mode)) {
      return usage_error(path + " exists and is not a directory");
    }
    return Ok{};
  }
  const size_t slash = path.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    if (auto parent = make_directory(path.substr(0, slash)); !parent) return parent;
  }
  if (mkdir(path.c_str(), 0700) != 0) {
    if (errno == EEXIST) return Ok{};  // another process made it first: not ours to change
    if (errno == ENOSPC) return unavailable_error("disk full: cannot create " + path);
    return usage_error("cannot create " + path + ": " + std::strerror(errno));
  }
  if (chmod(path.c_str(), 0700) != 0) {
    return usage_error("cannot make " + path + " private: " + std::strerror(errno));
  }
  return Ok{};
}

// What the file at `path` is, when it is not a regular file.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

Status not_regular(const std::string& path, mode_t mode) {
  std::string message = path + " is " + kind_of(mode) + "; a database must be a regular file";
  if (S_ISDIR(mode)) message += " (a file in that directory, say " + path + "/orrery.db)";
  return usage_error(message);
}

Status cannot_open(const std::string& path, int error) {
  if (error == ENOSPC) return unavailable_error("disk full: cannot create " + path);
  return usage_error("cannot open " + path + ": " + std::strerror(error));
}

// An existing `path` (as stat found it), looked at without being opened.
Status check_existing_file(const std::string& path, const struct stat& info) {
  if (!S_ISREG(info.st_mode)) return not_regular(path, info.st_mode);
  if (access(path.c_str(), R_OK | W_OK) != 0) return cannot_open(path, errno);
  return Ok{};
}

// Creates the absent `path`: exclusively, so that a file another process
// made meanwhile is looked at, not opened (and closed) here.
Status create_absent_file(const std::string& path) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0600);
  if (fd < 0 && errno == EEXIST) {
    struct stat info {};
    if (stat(path.c_str(), &info) == 0) return check_existing_file(path, info);
    if (errno != ENOENT) return cannot_open(path, errno);
    // A dangling symbolic link: its target is created, as SQLite would.
    fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0600);
  }
  if (fd < 0) return cannot_open(path, errno);
  struct stat info {};
  const bool read = fstat(fd, &info) == 0;
  close(fd);  // a file no connection of this process has open
  if (!read) return cannot_open(path, errno);
  return S_ISREG(info.st_mode) ? Status(Ok{}) : not_regular(path, info.st_mode);
}

}  // namespace

std::string default_data_dir() {
  if (const char* home = std::getenv("ORRERY_HOME"); home && *home) return home;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) {
    return std::string(xdg) + "/orrery";
  }
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.local/share/orrery";
}

Status prepare_data_dir(const std::string& path) {
  if (auto made = make_directory(path); !made) {
    return Error{made.error().code,
                 "cannot use " + path + " as the data directory: " + made.error().message};
  }
  if (exists_read_only(path)) return usage_error("data directory " + path + " is not writable");
  return Ok{};
}

bool exists_read_only(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return false;
  const bool directory = S_ISDIR(info.st_mode);
  const unsigned needed = directory ? 0300 : 0200;
  return access(path.c_str(), directory ? W_OK | X_OK : W_OK) != 0 ||
         (info.st_mode & needed) != needed;
}

std::string directory_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

Status create_private_file(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) == 0) return check_existing_file(path, info);
  if (errno != ENOENT) return cannot_open(path, errno);
  return create_absent_file(path);
}

Status make_files_private(const std::string& path) {
  for (const std::string& file : {path, path + "-wal", path + "-shm"}) {
    if (chmod(file.c_str(), 0600) != 0 && errno != ENOENT) {
      return usage_error("cannot make " + file + " private: " + std::strerror(errno));
    }
  }
  return Ok{};
}

}  // namespace orrery
