#include "exec/stop_signals.h"

#include <sys/signalfd.h>
#include <unistd.h>

#include <csignal>
#include <initializer_list>

namespace orrery {

StopSignals::StopSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int signal : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&set, signal);
  pthread_sigmask(SIG_BLOCK, &set, &previous_);
  fd_ = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  std::signal(SIGPIPE, SIG_IGN);
}

StopSignals::~StopSignals() {
  if (fd_ >= 0) close(fd_);
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

int StopSignals::take() {
  signalfd_siginfo info{};
  if (fd_ < 0 || read(fd_, &info, sizeof info) != ssize_t(sizeof info)) return 0;
  return int(info.ssi_signo);
}

const char* stop_signal_name(int signal) {
  return signal == SIGTERM  ? "SIGTERM"
         : signal == SIGINT ? "SIGINT"
         : signal == SIGHUP ? "SIGHUP"
                            : "a signal";
}

}  // namespace orrery
