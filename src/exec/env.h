// Env: the file calls the supervisor makes (open, write, fsync, rename,
// close), behind one small interface, so that short writes, a full disk and
// I/O errors can be injected in unit tests (docs/execution.md). The real
// implementation forwards to the system; every call reports failure as
// errno does (-1 and an error number), never by throwing.
//
// Invariant: write_all either writes every byte (looping on short writes and
// EINTR) or returns the error that stopped it.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "core/result.h"

namespace orrery {

class Env {
 public:
  virtual ~Env() = default;
  // Each returns -1 and sets errno on failure, like the system call it names.
  virtual int open(const std::string& path, int flags, mode_t mode) = 0;
  virtual ssize_t write(int fd, const void* data, size_t size) = 0;
  virtual int fsync(int fd) = 0;
  virtual int rename(const std::string& from, const std::string& to) = 0;
  virtual int close(int fd) = 0;
  // The size of an open file, or -1.
  virtual off_t size(int fd) = 0;
};

// The system's Env, shared by the whole process.
Env& system_env();

// Writes all of `data` to fd; a short write is continued, EINTR retried. The
// error names `what` (a file) and the system's reason.
Status write_all(Env& env, int fd, std::string_view data, const std::string& what);

// Replaces `path` durably: writes a temporary file beside it, fsyncs it,
// renames it over `path` and fsyncs the directory. Nothing is left at
// `path` or beside it on failure.
Status write_file_atomically(Env& env, const std::string& path, std::string_view data, mode_t mode);

}  // namespace orrery
