#include "store/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/byte_size.h"

namespace orrery {
namespace {

Error refused(const std::string& path, const std::string& why) {
  return usage_error(path + " " + why);
}

// "256KiB (262144 bytes)"; "199999B" when that is already exact.
std::string limit_text(std::int64_t bytes) {
  const std::string size = format_byte_size(bytes);
  const std::string exact = std::to_string(bytes) + "B";
  return size == exact ? size : size + " (" + std::to_string(bytes) + " bytes)";
}

}  // namespace

Result<std::optional<std::string>> read_regular_file(const std::string& path,
                                                     std::int64_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<std::string>{};
    return refused(path, std::string("cannot be read: ") + std::strerror(errno));
  }
  struct stat info {};
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    const bool directory = S_ISDIR(info.st_mode);
    ::close(fd);
    return refused(path, directory ? "is a directory" : "is not a regular file");
  }
  std::string text;
  char buffer[64 * 1024];
  while (true) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int error = errno;
      ::close(fd);
      return refused(path, std::string("cannot be read: ") + std::strerror(error));
    }
    if (got == 0) break;
    if (std::int64_t(text.size()) + got > max_bytes) {
      ::close(fd);
      return refused(path, "is larger than " + limit_text(max_bytes) + ", the most accepted");
    }
    text.append(buffer, size_t(got));
  }
  ::close(fd);
  return std::optional<std::string>{std::move(text)};
}

}  // namespace orrery
