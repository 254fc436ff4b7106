#include "store/secrets.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/limits.h"
#include "store/data_dir.h"
#include "store/home_layout.h"
#include "store/regular_file.h"

namespace orrery {

namespace {

// Writes all of `text`, continuing short writes and retrying EINTR.
bool write_fully(int fd, const std::string& text) {
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    written += size_t(n);
  }
  return true;
}

// Makes a rename inside `directory` durable.
bool fsync_directory(const std::string& directory) {
  const int fd = open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool synced = fsync(fd) == 0;
  const int error = errno;
  close(fd);
  errno = error;
  return synced;
}

}  // namespace

// The file is replaced whole or not at all: a temporary file, written in
// full and fsynced, renamed over the old one, then the directory fsynced.
Status write_loop_secrets(const std::string& home, const std::string& loop_id,
                          const std::vector<EnvVar>& secrets) {
  if (secrets.empty()) return Ok{};
  const HomeLayout layout(home);
  const std::string directory = layout.secrets_directory();
  if (auto dir = prepare_data_dir(directory); !dir) return dir;
  const std::string path = layout.loop_secrets(loop_id);
  const std::string temporary = path + ".tmp";
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return usage_error("cannot write " + temporary + ": " + std::strerror(errno));
  std::string text;
  for (const auto& [key, value] : secrets) text += key + "=" + value + "\n";
  bool written = write_fully(fd, text) && fsync(fd) == 0;
  int error = errno;
  if (close(fd) != 0 && written) {
    written = false;
    error = errno;
  }
  if (written && std::rename(temporary.c_str(), path.c_str()) != 0) {
    written = false;
    error = errno;
  }
  if (!written) {
    std::remove(temporary.c_str());
    return internal_error("cannot write " + path + ": " + std::strerror(error));
  }
  if (!fsync_directory(directory)) {
    return internal_error("cannot make " + path + " durable: " + std::strerror(errno));
  }
  return Ok{};
}

Result<std::vector<EnvVar>> read_loop_secrets(const std::string& home, const std::string& loop_id) {
  const std::string path = HomeLayout(home).loop_secrets(loop_id);
  auto file = read_regular_file(path, kMaxSecretsFileBytes);
  if (!file) return usage_error("the secrets file " + file.error().message);
  std::vector<EnvVar> secrets;
  if (!file->has_value()) return secrets;
  const std::string& text = **file;
  size_t line_number = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    const size_t equals = line.find('=');
    if (equals == std::string::npos || equals == 0) {
      return usage_error("the secrets file " + path + " is damaged: line " +
                         std::to_string(line_number) + " is not KEY=VALUE");
    }
    secrets.emplace_back(line.substr(0, equals), line.substr(equals + 1));
  }
  return secrets;
}

Status remove_loop_secrets(const std::string& home, const std::string& loop_id) {
  const std::string path = HomeLayout(home).loop_secrets(loop_id);
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {
    return internal_error("cannot remove " + path + ": " + std::strerror(errno));
  }
  return Ok{};
}

}  // namespace orrery
