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
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <vector>

#include "exec/descriptors.h"
#include "exec/process_identity.h"

namespace orrery {
namespace {

// A request is its five fields joined by NUL bytes; an answer is one
// Answer with the pidfd attached.
constexpr std::size_t kMaxRequestBytes = 16 * 1024;
constexpr int kServerExitWaitMs = 1000;

struct Answer {
  int pid = 0;                  // the supervisor, or 0
  int error = 0;                // why not: the errno of the fork
  std::int64_t started_at = 0;  // the supervisor's start time (0: unknown)
};

std::string encode(const ForkRequest& request) {
  std::string message;
  for (const std::string* field :
       {&request.run_id, &request.claimed_by, &request.token, &request.run_dir}) {
    message += *field;
    message += '\0';
  }
  message += std::to_string(request.lease_ms);
  message += '\0';
  message += std::to_string(int(request.kind));
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
  if (fields.size() != 6 || fields[4].empty()) return false;
  if (fields[5] != std::to_string(int(WorkKind::kLoopRun)) &&
      fields[5] != std::to_string(int(WorkKind::kStepAttempt)))
    return false;
  request.kind = WorkKind(std::stoi(fields[5]));
  request.run_id = fields[0];
  request.claimed_by = fields[1];
  request.token = fields[2];
  request.run_dir = fields[3];
  char* end = nullptr;
  request.lease_ms = std::strtoll(fields[4].c_str(), &end, 10);
  return *end == '\0';
}

int pidfd_open(pid_t pid) { return int(syscall(SYS_pidfd_open, pid, 0)); }

// In a forked supervisor: the state an exec'd one starts with (its own
// session, no signal blocked, stdin, stdout and stderr on /dev/null until its
// log arrives), with only `channel` open, moved to descriptor 3.
void become_supervisor(int channel, int limit) {
  setsid();
  prctl(PR_SET_NAME, "orrery-supervis");
  signal(SIGCHLD, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (null >= 0) dup2(null, fd);
  }
  if (channel != 3) dup2(channel, 3);
  close_from(4, limit);
}

// Receives one message and the descriptor attached to it (-1 if none).
ssize_t receive_with_fd(int socket, std::string& buffer, int& fd) {
  iovec data{buffer.data(), buffer.size()};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  ssize_t got;
  while ((got = recvmsg(socket, &message, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  fd = -1;
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
       header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS) {
      std::memcpy(&fd, CMSG_DATA(header), sizeof fd);
    }
  }
  return got;
}

// Sends one message with descriptor `fd` attached (none when -1).
bool send_with_fd(int socket, const void* bytes, std::size_t size, int fd) {
  iovec data{const_cast<void*>(bytes), size};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (fd >= 0) {
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(header), &fd, sizeof fd);
  }
  ssize_t sent;
  while ((sent = sendmsg(socket, &message, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
  }
  return sent == ssize_t(size);
}

// The life of a spare: prepared at once, then waiting on descriptor 3 for
// its request; without one (the server is gone) it exits.
//
// Nothing may leave a forked child but _exit: an exception climbing out of
// it would run its parent's code (the daemon's) in the child.
[[noreturn]] void run_spare(const SupervisorForker::Prepare& prepare) try {
  const SupervisorForker::Runner runner = prepare();
  std::string buffer(kMaxRequestBytes, '\0');
  ssize_t got;
  while ((got = recv(3, buffer.data(), buffer.size(), 0)) < 0 && errno == EINTR) {
  }
  ForkRequest request;
  if (got <= 0 || !decode(buffer.substr(0, std::size_t(got)), request)) _exit(0);
  ::close(3);
  const int status = runner(request);
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  _exit(status);
} catch (const std::exception& error) {
  std::cerr << "orrery: the supervisor stopped on an unexpected exception: " << error.what()
            << '\n';
  _exit(70);
} catch (...) {
  _exit(70);
}

void reap_children() {
  while (waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

// The server: it keeps one supervisor forked and prepared ahead of the next
// request (the spare), hands it each request, answers with its pid and
// pidfd, and only then forks the next spare.
class Server {
 public:
  Server(int socket, const SupervisorForker::Prepare& prepare)
      : socket_(socket), prepare_(prepare), limit_(descriptor_limit()) {}

  [[noreturn]] void serve() {
    setsid();  // a terminal's Ctrl-C goes to the daemon, which then closes the socket
    prctl(PR_SET_NAME, "orrery-forker");
    const int exits = watch_child_exits();
    // Read once here (the boot time, cached), not once per supervisor.
    (void)process_start_time(getpid());
    make_spare();
    std::string buffer(kMaxRequestBytes, '\0');
    while (true) {
      pollfd watched[2] = {{socket_, POLLIN, 0}, {exits, POLLIN, 0}};
      if (poll(watched, exits >= 0 ? 2 : 1, exits >= 0 ? -1 : 1000) < 0 && errno != EINTR) break;
      if (exits >= 0 && (watched[1].revents & POLLIN)) {
        signalfd_siginfo info;
        while (read(exits, &info, sizeof info) > 0) {
        }
      }
      reap_children();
      if (watched[0].revents == 0) continue;
      const ssize_t got = recv(socket_, buffer.data(), buffer.size(), 0);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;  // the caller is gone
      const std::string message = buffer.substr(0, std::size_t(got));
      ForkRequest request;
      int pidfd = -1;
      const Answer answer =
          decode(message, request) ? hand_over(message, pidfd) : Answer{0, EINVAL};
      send_with_fd(socket_, &answer, sizeof answer, pidfd);
      if (pidfd >= 0) ::close(pidfd);
      if (spare_.pid == 0) make_spare();
    }
    drop_spare();
    _exit(0);
  }

 private:
  struct Spare {
    pid_t pid = 0;
    int pidfd = -1;
    int channel = -1;  // the server's end
    TimeMs started_at = 0;
  };

  static int watch_child_exits() {
    sigset_t child_exits;
    sigemptyset(&child_exits);
    sigaddset(&child_exits, SIGCHLD);
    sigprocmask(SIG_BLOCK, &child_exits, nullptr);
    return signalfd(-1, &child_exits, SFD_CLOEXEC | SFD_NONBLOCK);
  }

  // Forks the next spare; errno when it cannot.
  int make_spare() {
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0) return errno;
    const pid_t child = fork();
    if (child == 0) {
      become_supervisor(ends[1], limit_);
      run_spare(prepare_);
    }
    const int error = errno;
    ::close(ends[1]);
    if (child < 0) {
      ::close(ends[0]);
      return error;
    }
    // Not yet reaped (only this process reaps, and it watches the pidfd
    // first): the pidfd names this very child.
    // Read now, while it cannot have been reaped: a supervisor that ends at
    // once still has a start time to be recorded by.
    spare_ = {child, pidfd_open(child), ends[0], process_start_time(child).value_or(0)};
    return 0;
  }

  bool spare_alive() const {
    if (spare_.pid == 0) return false;
    // Without a pidfd (a kernel before 5.3) a dead spare shows when the
    // request cannot be sent to it.
    if (spare_.pidfd < 0) return ::kill(spare_.pid, 0) == 0;
    pollfd ended{spare_.pidfd, POLLIN, 0};
    return poll(&ended, 1, 0) == 0;
  }

  void drop_spare() {
    close_fd(spare_.channel);
    close_fd(spare_.pidfd);
    spare_ = {};
  }

  // Gives the request to the spare (a fresh one if it died): the answer,
  // and the spare's pidfd, which is the caller's from now on.
  Answer hand_over(const std::string& message, int& pidfd) {
    Answer answer{0, EIO};
    for (int attempt = 0; attempt < 2 && answer.pid == 0; ++attempt) {
      if (!spare_alive()) {
        drop_spare();
        if (const int error = make_spare(); error != 0) return {0, error};
      }
      if (send(spare_.channel, message.data(), message.size(), MSG_NOSIGNAL) ==
          ssize_t(message.size())) {
        answer = {spare_.pid, 0, spare_.started_at};
        pidfd = spare_.pidfd;
        spare_.pidfd = -1;
      }
      drop_spare();  // handed over, or unusable
    }
    return answer;
  }

  int socket_;
  const SupervisorForker::Prepare& prepare_;
  int limit_;
  Spare spare_;
};

}  // namespace

Result<SupervisorForker> SupervisorForker::start(Prepare prepare) {
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
    try {
      Server(3, prepare).serve();
    } catch (...) {
    }
    _exit(70);  // only _exit leaves a forked child (run_spare)
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

// The server exits as soon as its socket closes: it is reaped here (waited
// for at most kServerExitWaitMs), not left for a later SIGCHLD.
void SupervisorForker::lose_server() {
  close_fd(socket_);
  if (server_ > 0) {
    const int pidfd = pidfd_open(server_);
    if (pidfd >= 0) {
      pollfd ended{pidfd, POLLIN, 0};
      poll(&ended, 1, kServerExitWaitMs);
      ::close(pidfd);
    }
    waitpid(server_, nullptr, WNOHANG);
  }
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
  std::string reply(sizeof answer, '\0');
  int pidfd = -1;
  const ssize_t got = sent == ssize_t(message.size()) ? receive_with_fd(socket_, reply, pidfd) : -1;
  if (got == ssize_t(sizeof answer)) std::memcpy(&answer, reply.data(), sizeof answer);
  if (got != ssize_t(sizeof answer)) {
    if (pidfd >= 0) ::close(pidfd);
    lose_server();
    return internal_error("the supervisor fork server is gone");
  }
  if (answer.pid <= 0) {
    if (pidfd >= 0) ::close(pidfd);
    return internal_error(std::string("cannot start the supervisor: the fork server could not "
                                      "fork one: ") +
                          std::strerror(answer.error));
  }
  ForkedSupervisor forked{answer.pid, pidfd, std::nullopt};
  if (answer.started_at != 0) forked.started_at = answer.started_at;
  return forked;
}

}  // namespace orrery
