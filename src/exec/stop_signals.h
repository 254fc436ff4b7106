// StopSignals: SIGTERM, SIGINT and SIGHUP, read from a signalfd while the
// object lives, for a process that handles them in its own event loop (a
// supervisor, a workflow driver). The previous signal mask is restored when
// it ends; SIGPIPE is ignored (a closed pipe is an error, not a death).
#pragma once

#include <signal.h>

namespace orrery {

class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  int fd() const { return fd_; }
  // The signal received, or 0.
  int take();

 private:
  sigset_t previous_;
  int fd_ = -1;
};

// "SIGTERM", "SIGINT", "SIGHUP" or "a signal".
const char* stop_signal_name(int signal);

}  // namespace orrery
