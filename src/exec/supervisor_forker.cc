#include "exec/supervisor_forker.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <vector>

#include "exec/descriptors.h"

namespace orrery {
namespace {

// A request is its four fields joined by NUL bytes; an answer is one
// Answer with the pidfd attached.
constexpr std::size_t kMaxRequestBytes = 16 * 1024;

struct Answer {
  int pid = 0;          // the supervisor, or 0
  int error = 0;        // why not: an errno
  int opening_log = 0;  // 1: the log file could not be opened, else the fork failed
};

std::string encode(const ForkRequest& request) {
  std::string message = request.run_id;
  message += '\0';
  message += request.token;
  message += '\0';
  message += request.log_path;
  message += '\0';
  message += std::to_string(request.lease_ms);
  return message;
}

bool decode(const std::string& message, ForkRequest& request) {
  std::vector<std::string> fields(1);
  for (char c : message) {
    if (c == '\0') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (fields.size() != 4 || fields[3].empty()) return false;
  request.run_id = fields[0];
  request.token = fields[1];
  request.log_path = fields[2];
  char* end = nullptr;
  request.lease_ms = std::strtoll(fields[3].c_str(), &end, 10);
  return *end == '\0';
}

int pidfd_open(pid_t pid) { return int(syscall(SYS_pidfd_open, pid, 0)); }

void send_answer(int socket, Answer answer, int pidfd) {
  iovec data{&answer, sizeof answer};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (pidfd >= 0) {
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(header), &pidfd, sizeof pidfd);
  }
  while (sendmsg(socket, &message, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
}

// In the forked supervisor: the state an exec'd one starts with, then the body.
[[noreturn]] void become_supervisor(const SupervisorForker::Body& body, const ForkRequest& request,
                                    int log_fd, int limit) {
  setsid();
  prctl(PR_SET_NAME, "orrery-supervis");
  signal(SIGCHLD, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null >= 0) dup2(null, STDIN_FILENO);
  dup2(log_fd, STDOUT_FILENO);
  dup2(log_fd, STDERR_FILENO);
  close_from(3, limit);
  const int status = body(request);
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  _exit(status);
}

// Forks one supervisor: the answer, and its pidfd.
Answer fork_one(const SupervisorForker::Body& body, const ForkRequest& request, int limit,
                int& pidfd) {
  const int log_fd =
      open(request.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log_fd < 0) return {0, errno, 1};
  const pid_t child = fork();
  if (child == 0) become_supervisor(body, request, log_fd, limit);
  const int error = errno;
  ::close(log_fd);
  if (child < 0) return {0, error, 0};
  // Not yet reaped (only this process reaps it, after answering): the
  // pidfd names this very child.
  pidfd = pidfd_open(child);
  return {child, 0, 0};
}

void reap_children() {
  while (waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

// The server's loop: one answer per request, until the caller's end closes.
[[noreturn]] void serve(int socket, const SupervisorForker::Body& body) {
  setsid();  // a terminal's Ctrl-C goes to the daemon, which then closes the socket
  prctl(PR_SET_NAME, "orrery-forker");
  sigset_t child_exits;
  sigemptyset(&child_exits);
  sigaddset(&child_exits, SIGCHLD);
  sigprocmask(SIG_BLOCK, &child_exits, nullptr);
  const int exits = signalfd(-1, &child_exits, SFD_CLOEXEC | SFD_NONBLOCK);
  const int limit = descriptor_limit();
  std::string buffer(kMaxRequestBytes, '\0');
  while (true) {
    pollfd watched[2] = {{socket, POLLIN, 0}, {exits, POLLIN, 0}};
    if (poll(watched, exits >= 0 ? 2 : 1, exits >= 0 ? -1 : 1000) < 0 && errno != EINTR) break;
    if (exits >= 0 && (watched[1].revents & POLLIN)) {
      signalfd_siginfo info;
      while (read(exits, &info, sizeof info) > 0) {
      }
    }
    reap_children();
    if (watched[0].revents == 0) continue;
    const ssize_t got = recv(socket, buffer.data(), buffer.size(), 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // the caller is gone
    ForkRequest request;
    int pidfd = -1;
    const Answer answer = decode(buffer.substr(0, std::size_t(got)), request)
                              ? fork_one(body, request, limit, pidfd)
                              : Answer{0, EINVAL, 0};
    send_answer(socket, answer, pidfd);
    if (pidfd >= 0) ::close(pidfd);
  }
  _exit(0);
}

int received_pidfd(msghdr& message) {
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
       header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(header), sizeof fd);
      return fd;
    }
  }
  return -1;
}

}  // namespace

Result<SupervisorForker> SupervisorForker::start(Body body) {
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0) {
    return internal_error(std::string("cannot start the supervisor fork server: socketpair: ") +
                          std::strerror(errno));
  }
  // Nothing buffered for stdout may be written twice by a forked copy.
  std::cout.flush();
  std::fflush(nullptr);
  const int limit = descriptor_limit();
  const pid_t server = fork();
  if (server < 0) {
    const int error = errno;
    ::close(ends[0]);
    ::close(ends[1]);
    return internal_error(std::string("cannot start the supervisor fork server: fork: ") +
                          std::strerror(error));
  }
  if (server == 0) {
    // Only its own end stays open, at descriptor 3.
    if (ends[1] != 3) dup2(ends[1], 3);
    close_from(4, limit);
    serve(3, body);
  }
  ::close(ends[1]);
  return SupervisorForker(ends[0], server);
}

SupervisorForker::SupervisorForker(SupervisorForker&& other) noexcept
    : socket_(other.socket_), server_(other.server_) {
  other.socket_ = -1;
  other.server_ = -1;
}

SupervisorForker::~SupervisorForker() { lose_server(); }

void SupervisorForker::lose_server() {
  close_fd(socket_);
  if (server_ > 0) waitpid(server_, nullptr, WNOHANG);
  server_ = -1;
}

Result<ForkedSupervisor> SupervisorForker::fork_supervisor(const ForkRequest& request) {
  if (socket_ < 0) return internal_error("the supervisor fork server is gone");
  const std::string message = encode(request);
  if (message.size() > kMaxRequestBytes) {
    return internal_error("cannot start the supervisor of run " + request.run_id +
                          ": its request is over " + std::to_string(kMaxRequestBytes) + " bytes");
  }
  ssize_t sent;
  while ((sent = send(socket_, message.data(), message.size(), MSG_NOSIGNAL)) < 0 &&
         errno == EINTR) {
  }
  Answer answer;
  iovec data{&answer, sizeof answer};
  msghdr reply{};
  reply.msg_iov = &data;
  reply.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  reply.msg_control = control;
  reply.msg_controllen = sizeof control;
  ssize_t got = -1;
  if (sent == ssize_t(message.size())) {
    while ((got = recvmsg(socket_, &reply, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
    }
  }
  if (got != ssize_t(sizeof answer)) {
    lose_server();
    return internal_error("the supervisor fork server is gone");
  }
  const int pidfd = received_pidfd(reply);
  if (answer.pid <= 0) {
    if (pidfd >= 0) ::close(pidfd);
    const std::string what =
        answer.opening_log ? "cannot open " + request.log_path : std::string("fork failed");
    return internal_error("cannot start the supervisor: " + what + ": " +
                          std::strerror(answer.error));
  }
  return ForkedSupervisor{answer.pid, pidfd};
}

}  // namespace orrery
