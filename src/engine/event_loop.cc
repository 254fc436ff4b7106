#include "engine/event_loop.h"

#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace orrery {
namespace {

// With no deadline the timer is still armed, a year ahead, so that a step
// of the wall clock wakes the loop all the same.
constexpr DurationMs kIdleHorizonMs = 366 * kMsPerDay;

Error loop_error(const std::string& what, int error) {
  return internal_error("the daemon's event loop cannot " + what + ": " + std::strerror(error));
}

int pidfd_open(pid_t pid) { return int(syscall(SYS_pidfd_open, pid, 0)); }

Status add_to(int epoll, int fd) {
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.fd = fd;
  if (epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) != 0)
    return loop_error("watch a descriptor", errno);
  return Ok{};
}

TimeMs realtime_now() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return TimeMs(now.tv_sec) * 1000 + now.tv_nsec / 1'000'000;
}

}  // namespace

Result<EventLoop> EventLoop::create() {
  EventLoop loop;
  sigset_t signals;
  sigemptyset(&signals);
  for (int signal : {SIGTERM, SIGINT, SIGHUP, SIGCHLD}) sigaddset(&signals, signal);
  if (pthread_sigmask(SIG_BLOCK, &signals, &loop.previous_mask_) != 0) {
    return loop_error("block signals", errno);
  }
  loop.mask_set_ = true;
  loop.epoll_ = epoll_create1(EPOLL_CLOEXEC);
  if (loop.epoll_ < 0) return loop_error("create an epoll set", errno);
  loop.signal_fd_ = signalfd(-1, &signals, SFD_NONBLOCK | SFD_CLOEXEC);
  if (loop.signal_fd_ < 0) return loop_error("create a signalfd", errno);
  loop.timer_fd_ = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
  if (loop.timer_fd_ < 0) return loop_error("create a timerfd", errno);
  if (auto added = add_to(loop.epoll_, loop.signal_fd_); !added) return added.error();
  if (auto added = add_to(loop.epoll_, loop.timer_fd_); !added) return added.error();
  return loop;
}

EventLoop::EventLoop(EventLoop&& other) noexcept
    : epoll_(other.epoll_),
      signal_fd_(other.signal_fd_),
      timer_fd_(other.timer_fd_),
      watched_fds_(std::move(other.watched_fds_)),
      previous_mask_(other.previous_mask_),
      mask_set_(other.mask_set_),
      pidfds_(std::move(other.pidfds_)),
      gone_(std::move(other.gone_)) {
  other.epoll_ = other.signal_fd_ = other.timer_fd_ = -1;
  other.watched_fds_.clear();
  other.mask_set_ = false;
  other.pidfds_.clear();
}

EventLoop::~EventLoop() {
  for (const auto& [pidfd, pid] : pidfds_) ::close(pidfd);
  for (int fd : {epoll_, signal_fd_, timer_fd_}) {
    if (fd >= 0) ::close(fd);
  }
  if (mask_set_) pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
}

Status EventLoop::watch_readable(int fd) {
  if (auto added = add_to(epoll_, fd); !added) return added;
  watched_fds_.push_back(fd);
  return Ok{};
}

void EventLoop::unwatch_readable(int fd) {
  const auto found = std::find(watched_fds_.begin(), watched_fds_.end(), fd);
  if (found == watched_fds_.end()) return;
  epoll_ctl(epoll_, EPOLL_CTL_DEL, fd, nullptr);  // fails only for a closed fd: gone already
  watched_fds_.erase(found);
}

void EventLoop::watch_process(pid_t pid) { watch_process(pid, pidfd_open(pid)); }

void EventLoop::watch_process(pid_t pid, int pidfd) {
  if (pidfd < 0 || !add_to(epoll_, pidfd)) {
    if (pidfd >= 0) ::close(pidfd);
    gone_.push_back(pid);  // already gone (ESRCH), or not watchable: reported at once
    return;
  }
  pidfds_.emplace(pidfd, pid);
}

Status EventLoop::arm(std::optional<TimeMs> deadline) {
  const TimeMs at =
      deadline ? std::max<TimeMs>(*deadline, 1) : add_saturating(realtime_now(), kIdleHorizonMs);
  itimerspec spec{};
  spec.it_value.tv_sec = at / 1000;
  spec.it_value.tv_nsec = long(at % 1000) * 1'000'000;
  if (timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &spec, nullptr) !=
      0) {
    return loop_error("set its timer", errno);
  }
  return Ok{};
}

Result<LoopEvents> EventLoop::wait(std::optional<TimeMs> deadline) {
  LoopEvents events;
  for (pid_t pid : gone_) events.exited.push_back(pid);
  gone_.clear();
  if (auto armed = arm(deadline); !armed) return armed.error();
  // Every ready descriptor is reported, however many: a backlog of exited
  // supervisors must not hide a signal behind it (docs/daemon.md).
  epoll_event ready[kReadyBatch];
  const int timeout = events.exited.empty() ? -1 : 0;
  int count = epoll_wait(epoll_, ready, kReadyBatch, timeout);
  if (count < 0 && errno != EINTR) return loop_error("wait", errno);
  while (count > 0) {
    for (int i = 0; i < count; ++i) take(ready[i].data.fd, events);
    if (count < kReadyBatch) break;
    count = epoll_wait(epoll_, ready, kReadyBatch, 0);
  }
  return events;
}

void EventLoop::take(int fd, LoopEvents& events) {
  if (fd == signal_fd_) {
    read_signals(events);
  } else if (fd == timer_fd_) {
    read_timer(events);
  } else if (std::find(watched_fds_.begin(), watched_fds_.end(), fd) != watched_fds_.end()) {
    events.readable = true;
    events.readable_fds.push_back(fd);
  } else {
    reap_pidfd(fd, events);
  }
}

void EventLoop::read_signals(LoopEvents& events) {
  signalfd_siginfo info{};
  while (read(signal_fd_, &info, sizeof info) == ssize_t(sizeof info)) {
    events.signals.push_back(int(info.ssi_signo));
  }
}

void EventLoop::read_timer(LoopEvents& events) {
  std::uint64_t expirations = 0;
  if (read(timer_fd_, &expirations, sizeof expirations) == ssize_t(sizeof expirations)) {
    events.deadline = true;
  } else if (errno == ECANCELED) {
    events.clock_stepped = true;
  }
}

void EventLoop::reap_pidfd(int pidfd, LoopEvents& events) {
  const auto found = pidfds_.find(pidfd);
  if (found == pidfds_.end()) {
    epoll_ctl(epoll_, EPOLL_CTL_DEL, pidfd, nullptr);  // never reported twice
    return;
  }
  events.exited.push_back(found->second);
  epoll_ctl(epoll_, EPOLL_CTL_DEL, pidfd, nullptr);
  ::close(pidfd);
  pidfds_.erase(found);
}

}  // namespace orrery
