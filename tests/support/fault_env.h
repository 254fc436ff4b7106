// An Env that forwards to the system's but injects the faults a test asks
// for: short writes (at most `max_write` bytes per call), a write that fails
// with `write_error` once `bytes_before_failure` bytes have been written to
// files whose path contains `fail_path`, and a failing rename or fsync.
#pragma once

#include <cerrno>
#include <map>
#include <string>

#include "exec/env.h"

namespace orrery::testing {

class FaultEnv final : public Env {
 public:
  size_t max_write = 0;   // 0: no limit
  std::string fail_path;  // empty: writes never fail
  long long bytes_before_failure = 0;
  int write_error = ENOSPC;
  int rename_error = 0;
  int fsync_error = 0;
  int write_calls = 0;

  int open(const std::string& path, int flags, mode_t mode) override {
    const int fd = system_env().open(path, flags, mode);
    if (fd >= 0) paths_[fd] = path;
    return fd;
  }
  ssize_t write(int fd, const void* data, size_t size) override {
    ++write_calls;
    if (max_write != 0 && size > max_write) size = max_write;
    const std::string& path = paths_[fd];
    if (!fail_path.empty() && path.find(fail_path) != std::string::npos) {
      if (written_[path] >= bytes_before_failure) {
        errno = write_error;
        return -1;
      }
      size = std::min<size_t>(size, size_t(bytes_before_failure - written_[path]));
    }
    const ssize_t n = system_env().write(fd, data, size);
    if (n > 0) written_[path] += n;
    return n;
  }
  int fsync(int fd) override {
    if (fsync_error != 0) {
      errno = fsync_error;
      return -1;
    }
    return system_env().fsync(fd);
  }
  int rename(const std::string& from, const std::string& to) override {
    if (rename_error != 0) {
      errno = rename_error;
      return -1;
    }
    return system_env().rename(from, to);
  }
  int close(int fd) override {
    paths_.erase(fd);
    return system_env().close(fd);
  }
  off_t size(int fd) override { return system_env().size(fd); }

 private:
  std::map<int, std::string> paths_;
  std::map<std::string, long long> written_;
};

}  // namespace orrery::testing
