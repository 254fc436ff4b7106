// Child processes a test forks to race each other over one store.
//
// Invariants: children begin together — each says it is ready and waits, and
// start() lets them all go once every one is ready (pipes, never a sleep); in
// Lockstep, the parent lets every child into a round at once and reads each
// child's report of it before the next. A child ends with _exit of its body's
// result (never returning into gtest, never running the parent's
// destructors) and is killed and reaped by the destructor if the test left
// it running. Every wait has a deadline, so a dead peer fails the test
// instead of hanging it. A body reports through its exit code (0: as
// expected), files and Lockstep reports; the parent asserts.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace orrery::testing {

inline constexpr int kChildWaitMs = 20'000;

inline std::string describe_exit(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

// Reads exactly `size` bytes from `fd`, waiting at most `timeout_ms` for each
// part; false on a timeout, an error or end of file.
inline bool read_fully(int fd, void* data, size_t size, int timeout_ms = kChildWaitMs) {
  auto* bytes = static_cast<char*>(data);
  size_t done = 0;
  while (done < size) {
    pollfd ready{fd, POLLIN, 0};
    const int polled = poll(&ready, 1, timeout_ms);
    if (polled < 0 && errno == EINTR) continue;
    if (polled <= 0) return false;
    const ssize_t got = read(fd, bytes + done, size - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    done += size_t(got);
  }
  return true;
}

inline bool write_fully(int fd, const void* data, size_t size) {
  const auto* bytes = static_cast<const char*>(data);
  size_t done = 0;
  while (done < size) {
    const ssize_t wrote = write(fd, bytes + done, size - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;
    done += size_t(wrote);
  }
  return true;
}

// A one-way channel: made before the fork, used by both sides.
class Pipe {
 public:
  Pipe() {
    if (pipe(fds_) != 0) fds_[0] = fds_[1] = -1;
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  ~Pipe() {
    for (const int fd : fds_) {
      if (fd >= 0) close(fd);
    }
  }
  bool ok() const { return fds_[0] >= 0; }
  bool send(const void* data, size_t size) const { return write_fully(fds_[1], data, size); }
  bool receive(void* data, size_t size) const { return read_fully(fds_[0], data, size); }

 private:
  int fds_[2] = {-1, -1};
};

class ForkedChildren {
 public:
  ForkedChildren() = default;
  ForkedChildren(const ForkedChildren&) = delete;
  ForkedChildren& operator=(const ForkedChildren&) = delete;
  ~ForkedChildren() {
    for (const pid_t pid : pids_) {
      if (pid <= 0) continue;
      kill(pid, SIGKILL);
      int status = 0;
      waitpid(pid, &status, 0);
    }
  }

  // Forks a child that runs `body`, which calls ready_and_wait() once it has
  // made ready (opened its store); false if the fork failed. The parent
  // holds no store connection across this: the child opens its own.
  bool fork(const std::function<int()>& body) {
    if (!ready_.ok() || !start_.ok()) return false;
    const pid_t pid = ::fork();
    if (pid < 0) return false;
    if (pid == 0) _exit(body());
    pids_.push_back(pid);
    return true;
  }

  // In a child: tells the parent it is ready and waits for start().
  bool ready_and_wait() const {
    char byte = 'r';
    return ready_.send(&byte, 1) && start_.receive(&byte, 1);
  }

  // Waits until every child forked is ready, then lets them all begin.
  bool start() {
    std::string bytes(pids_.size(), ' ');
    if (!ready_.receive(bytes.data(), bytes.size())) return false;
    return start_.send(bytes.data(), bytes.size());
  }

  // Waits for every child; one line per child that did not exit 0.
  std::string wait_all() {
    std::string failures;
    for (size_t index = 0; index < pids_.size(); ++index) {
      int status = 0;
      while (waitpid(pids_[index], &status, 0) < 0 && errno == EINTR) {
      }
      pids_[index] = -1;
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        failures +=
            "child " + std::to_string(index) + " ended with " + describe_exit(status) + "\n";
      }
    }
    return failures;
  }

 private:
  Pipe ready_;
  Pipe start_;
  std::vector<pid_t> pids_;
};

// Rounds run by several children in step: made before the fork.
class Lockstep {
 public:
  // What a child reports of a round.
  struct Report {
    std::int64_t a = 0;
    std::int64_t b = 0;
  };

  explicit Lockstep(int children) : go_(size_t(children)), reports_(size_t(children)) {}

  // In child `index`: waits to be let into the next round.
  bool enter_round(int index) const {
    char byte = 0;
    return go_[size_t(index)].receive(&byte, 1);
  }
  bool report(int index, const Report& report) const {
    return reports_[size_t(index)].send(&report, sizeof report);
  }

  // In the parent: lets every child into the next round.
  bool begin_round() const {
    for (const Pipe& go : go_) {
      if (!go.send("g", 1)) return false;
    }
    return true;
  }
  bool read_report(int index, Report& report) const {
    return reports_[size_t(index)].receive(&report, sizeof report);
  }

 private:
  std::vector<Pipe> go_;
  std::vector<Pipe> reports_;
};

}  // namespace orrery::testing
