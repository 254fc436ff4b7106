// Child processes a test forks to race each other over one store.
//
// Invariants: a child runs its body only after start() (one byte each through
// a pipe, so they begin together, never after a sleep), ends with _exit of the
// body's result (never returning into gtest, never running the parent's
// destructors), and is killed and reaped by the destructor if the test left it
// running. A body reports through its exit code (0: as expected) and through
// files or pipes; the parent asserts.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <functional>
#include <string>
#include <vector>

namespace orrery::testing {

inline std::string describe_exit(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

// Reads exactly `size` bytes from `fd`, waiting at most `timeout_ms` in all;
// false on a timeout, an error or end of file (the writer died).
inline bool read_fully(int fd, void* data, size_t size, int timeout_ms) {
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

class ForkedChildren {
 public:
  ForkedChildren() {
    if (pipe(start_) != 0) start_[0] = start_[1] = -1;
  }
  ForkedChildren(const ForkedChildren&) = delete;
  ForkedChildren& operator=(const ForkedChildren&) = delete;
  ~ForkedChildren() {
    close_fd(start_[0]);
    close_fd(start_[1]);
    for (const pid_t pid : pids_) {
      if (pid <= 0) continue;
      kill(pid, SIGKILL);
      int status = 0;
      waitpid(pid, &status, 0);
    }
  }

  // Forks a child that runs `body` once start() is called; false if the
  // fork failed. Open no store connection before this: the child opens its own.
  bool fork(const std::function<int()>& body) {
    if (start_[0] < 0) return false;
    const pid_t pid = ::fork();
    if (pid < 0) return false;
    if (pid == 0) {
      close(start_[1]);
      char go = 0;
      if (!read_fully(start_[0], &go, 1, kStartTimeoutMs)) _exit(90);
      close(start_[0]);
      _exit(body());
    }
    pids_.push_back(pid);
    return true;
  }

  // Lets every child forked so far begin.
  bool start() {
    const std::string go(pids_.size(), 'g');
    return write_fully(start_[1], go.data(), go.size());
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
  static constexpr int kStartTimeoutMs = 30'000;

  static void close_fd(int& fd) {
    if (fd >= 0) close(fd);
    fd = -1;
  }

  int start_[2] = {-1, -1};
  std::vector<pid_t> pids_;
};

}  // namespace orrery::testing
