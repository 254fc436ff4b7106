#include "exec/log_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "store/home_layout.h"

namespace orrery {
namespace {

// The last byte of the file at `path`, or 0 when it cannot be read.
char last_byte(const std::string& path) {
  char byte = 0;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const off_t end = ::lseek(fd, 0, SEEK_END);
  if (end <= 0 || ::pread(fd, &byte, 1, end - 1) != 1) byte = 0;
  ::close(fd);
  return byte;
}

}  // namespace

LogFile::LogFile(Env& env, std::string path, std::int64_t limit_bytes)
    : env_(env),
      path_(std::move(path)),
      file_capacity_(std::max<std::int64_t>(limit_bytes / 2, 1)) {}

LogFile::~LogFile() {
  if (fd_ >= 0) env_.close(fd_);
}

std::string LogFile::name() const { return path_.substr(path_.rfind('/') + 1); }

Status LogFile::open() {
  fd_ = env_.open(path_, O_WRONLY | O_CREAT | O_APPEND, 0600);
  if (fd_ < 0) return internal_error("cannot open " + path_ + ": " + std::strerror(errno));
  bytes_in_file_ = std::max<off_t>(env_.size(fd_), 0);
  mid_line_ = bytes_in_file_ > 0 && last_byte(path_) != '\n';
  const int older = env_.open(RunDirectory::rotated_log(path_), O_RDONLY, 0);
  if (older >= 0) {
    rotated_ = true;
    rotated_bytes_ = std::max<off_t>(env_.size(older), 0);
    env_.close(older);
  }
  return Ok{};
}

Status LogFile::mark_attempt(int attempt, TimeMs started_at) {
  return write_marker("=== attempt " + std::to_string(attempt) + " started " +
                      format_time(started_at) + " ===\n");
}

Status LogFile::append(std::string_view text) {
  while (!text.empty()) {
    if (bytes_in_file_ >= file_capacity_) {
      if (auto rotated = rotate(); !rotated) return rotated;
    }
    const size_t room = size_t(file_capacity_ - bytes_in_file_);
    const std::string_view part = text.substr(0, std::min(room, text.size()));
    if (auto written = write_raw(part); !written) return written;
    bytes_in_file_ += std::int64_t(part.size());
    text.remove_prefix(part.size());
  }
  return Ok{};
}

Status LogFile::write_raw(std::string_view text) {
  if (fd_ < 0) return internal_error("cannot write to " + path_ + ": it is not open");
  if (auto written = write_all(env_, fd_, text, path_); !written) return written;
  if (!text.empty()) mid_line_ = text.back() != '\n';
  return Ok{};
}

Status LogFile::write_marker(const std::string& line) {
  return write_raw(mid_line_ ? "\n" + line : line);
}

// The full file becomes <name>.1; the older <name>.1 is dropped.
Status LogFile::rotate() {
  if (rotated_) dropped_bytes_ += rotated_bytes_;
  env_.close(fd_);
  fd_ = -1;
  if (env_.rename(path_, RunDirectory::rotated_log(path_)) != 0) {
    return internal_error("cannot rotate " + path_ + ": " + std::strerror(errno));
  }
  rotated_ = true;
  rotated_bytes_ = bytes_in_file_;
  fd_ = env_.open(path_, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
  if (fd_ < 0) return internal_error("cannot open " + path_ + ": " + std::strerror(errno));
  bytes_in_file_ = 0;
  return write_marker("=== " + name() + " reached its limit: earlier output is in " +
                      RunDirectory::rotated_log(name()) + "; " + std::to_string(dropped_bytes_) +
                      " bytes before that were dropped ===\n");
}

}  // namespace orrery
