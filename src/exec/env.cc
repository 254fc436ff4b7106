#include "exec/env.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace orrery {
namespace {

class SystemEnv final : public Env {
 public:
  int open(const std::string& path, int flags, mode_t mode) override {
    return ::open(path.c_str(), flags | O_CLOEXEC, mode);
  }
  ssize_t write(int fd, const void* data, size_t size) override { return ::write(fd, data, size); }
  int fsync(int fd) override { return ::fsync(fd); }
  int rename(const std::string& from, const std::string& to) override {
    return std::rename(from.c_str(), to.c_str());
  }
  int close(int fd) override { return ::close(fd); }
  off_t size(int fd) override {
    struct stat info {};
    return ::fstat(fd, &info) == 0 ? info.st_size : -1;
  }
};

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

Error io_error(const std::string& action, const std::string& what, int error) {
  return internal_error("cannot " + action + " " + what + ": " + std::strerror(error));
}

}  // namespace

Env& system_env() {
  static SystemEnv env;
  return env;
}

Status write_all(Env& env, int fd, std::string_view data, const std::string& what) {
  while (!data.empty()) {
    const ssize_t written = env.write(fd, data.data(), data.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) return io_error("write to", what, errno);
    if (written == 0) return io_error("write to", what, EIO);
    data.remove_prefix(size_t(written));
  }
  return Ok{};
}

Status write_file_atomically(Env& env, const std::string& path, std::string_view data,
                             mode_t mode) {
  const std::string temporary = path + ".tmp";
  const int fd = env.open(temporary, O_WRONLY | O_CREAT | O_TRUNC, mode);
  if (fd < 0) return io_error("create", temporary, errno);
  Status written = write_all(env, fd, data, temporary);
  if (written && env.fsync(fd) != 0) written = io_error("fsync", temporary, errno);
  if (env.close(fd) != 0 && written) written = io_error("close", temporary, errno);
  if (written && env.rename(temporary, path) != 0) written = io_error("rename", temporary, errno);
  if (!written) {
    ::unlink(temporary.c_str());
    return written;
  }
  // The rename is durable once the directory is.
  const std::string directory = directory_of(path);
  const int dir = env.open(directory, O_RDONLY | O_DIRECTORY, 0);
  if (dir < 0) return io_error("open", directory, errno);
  const bool synced = env.fsync(dir) == 0;
  const int error = errno;
  env.close(dir);
  if (!synced) return io_error("fsync", directory, error);
  return Ok{};
}

}  // namespace orrery
