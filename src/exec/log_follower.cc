#include "exec/log_follower.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>

#include "store/home_layout.h"

namespace orrery {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Copies the rest of `fd` to `out`.
void copy_to_end(int fd, std::ostream& out) {
  char buffer[64 * 1024];
  ssize_t got;
  while ((got = ::read(fd, buffer, sizeof buffer)) > 0 || (got < 0 && errno == EINTR)) {
    if (got > 0) out.write(buffer, got);
  }
}

// The events of one directory: a write, a file closed after writing, a
// file created or renamed into it (a rotation).
class DirectoryWatch {
 public:
  explicit DirectoryWatch(std::string dir) : dir_(std::move(dir)) { add(); }
  ~DirectoryWatch() {
    if (fd_ >= 0) ::close(fd_);
  }
  DirectoryWatch(const DirectoryWatch&) = delete;
  DirectoryWatch& operator=(const DirectoryWatch&) = delete;

  // Waits for an event at most `timeout`; true when one came.
  bool wait(std::chrono::milliseconds timeout) {
    add();  // the directory may appear later (a run not started yet)
    pollfd fd{watched_ ? fd_ : -1, POLLIN, 0};
    if (::poll(&fd, 1, int(timeout.count())) <= 0) return false;
    char events[4096];
    (void)!::read(fd_, events, sizeof events);
    return true;
  }

 private:
  void add() {
    if (watched_ || fd_ < 0) return;
    watched_ = inotify_add_watch(fd_, dir_.c_str(),
                                 IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO) >= 0;
  }

  std::string dir_;
  int fd_ = inotify_init1(IN_CLOEXEC);
  bool watched_ = false;
};

std::string directory_of(const std::string& path) { return path.substr(0, path.rfind('/')); }

}  // namespace

std::string read_log(const std::string& path) {
  std::ostringstream text;
  for (const std::string& part : {RunDirectory::rotated_log(path), path}) {
    std::ifstream file(part, std::ios::binary);
    if (file) text << file.rdbuf();
  }
  return text.str();
}

LogFollower::~LogFollower() {
  if (fd_ >= 0) ::close(fd_);
}

void LogFollower::start() {
  open_current();
  std::ifstream older(RunDirectory::rotated_log(path_), std::ios::binary);
  if (older) out_ << older.rdbuf();
}

void LogFollower::copy_new() {
  if (fd_ < 0) open_current();
  if (fd_ >= 0) copy_to_end(fd_, out_);
  struct stat now {};
  if (fd_ >= 0 && ::stat(path_.c_str(), &now) == 0 && now.st_ino != inode_) {
    copy_to_end(fd_, out_);  // rotated: the old file's last bytes first
    ::close(fd_);
    fd_ = -1;
    open_current();
    if (fd_ >= 0) copy_to_end(fd_, out_);
  }
  out_.flush();
}

void LogFollower::open_current() {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat opened {};
  if (fd_ >= 0 && ::fstat(fd_, &opened) == 0) inode_ = opened.st_ino;
}

Status follow_log(const std::string& path, std::ostream& out, const FollowUntil& until,
                  FollowPace pace) {
  DirectoryWatch watch(directory_of(path));
  LogFollower log(path, out);
  log.start();
  auto asked = SteadyClock::time_point{};
  bool woken = true;  // the first pass asks at once
  while (true) {
    log.copy_new();
    const auto now = SteadyClock::now();
    const auto since = now - asked;
    if ((woken && since >= pace.at_most_every) || since >= pace.at_least_every) {
      asked = now;
      woken = false;
      auto done = until();
      if (!done) return done.error();
      if (*done) break;
    }
    const auto next = asked + (woken ? pace.at_most_every : pace.at_least_every);
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(next - SteadyClock::now());
    if (watch.wait(std::max(wait, std::chrono::milliseconds(0)))) woken = true;
  }
  log.copy_new();
  return Ok{};
}

}  // namespace orrery
