// `orrery daemon` (docs/daemon.md): the process that runs loops on their
// schedules. It takes the daemon lease, listens for wake-ups, and then
// repeats: tick (engine/tick.h), start a supervisor per claim, stop the runs
// a `replace` overlap ended, and sleep in the event loop
// (engine/event_loop.h) until the earliest of the next due slot, a run
// lease's end, a cooldown's end, the next lease heartbeat (ttl/3), a
// systemd watchdog ping, a retry after a store error, a wake-up, a signal or
// a supervisor's exit. There is no polling interval.
//
// On a shared database server (docs/daemon.md, "Runners") the lease holder
// plans slots as pending runs; every daemon, the holder included, claims
// the pending runs its labels allow when the server notifies it (and at
// each heartbeat, should a notice have been lost with a connection), and
// acts on cancel requests for its runs. A daemon that finds the lease held
// runs as a runner only and tries the lease again when it may have expired.
//
// Invariants:
// - the daemon never runs a target itself: each claim gets a supervisor in
//   a new session, which outlives the daemon;
// - "daemon lease lost" (a heartbeat or any fenced write) stops it at once:
//   nothing more is claimed, supervisors keep running, exit 4;
// - any other store error is logged and retried with a backoff (100 ms
//   doubling to 30 s); the lease is kept while heartbeats succeed;
// - SIGTERM and SIGINT stop claiming, release the lease and exit 0,
//   leaving supervisors running; SIGHUP reopens the log; SIGPIPE is ignored
//   (a log reader that went away costs lines, not the daemon);
// - a suspend of the machine (engine/suspend_detector.h) restarts watching:
//   slots that fell due while it slept are missed;
// - a database file removed or replaced under it (another inode at its
//   path) stops it with exit 75 at the next heartbeat: it would otherwise go
//   on alone with a file no other process sees.
//
// Seams (docs/daemon.md, "Seams"): the daemon reads the time, acts on
// processes, waits and starts supervisors only through its DaemonSystem;
// run_daemon's first overload gives it the machine's. Its decisions are
// functions of plain values: when to wake (engine/daemon_deadline.h), what a
// failed write means for the lease (engine/lease_failure.h), how a replaced
// run is stopped (engine/replace_stop.h).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/runner_labels.h"
#include "engine/daemon_log.h"
#include "engine/events.h"
#include "engine/tick.h"
#include "exec/clock.h"
#include "exec/launcher.h"
#include "exec/process_control.h"
#include "exec/supervisor_forker.h"
#include "store/store.h"

namespace orrery {

inline constexpr DurationMs kFirstRetryMs = 100;
inline constexpr DurationMs kMaxRetryMs = 30'000;

struct DaemonOptions {
  StoreLocation location;
  bool once = false;      // one tick as of `started_at`, wait for its runs, return
  TimeMs started_at = 0;  // the invocation's start
  DurationMs lease_ttl_ms = 30'000;
  int max_running = kDefaultMaxRunning;
  // Forks the supervisors (exec/supervisor_forker.h); none: each is exec'd.
  // The machine's launcher forks through it; the daemon logs its loss.
  SupervisorForker* forker = nullptr;
  // The SQLite file: a daemon whose file is removed or replaced stops.
  std::string database_path;
  // This runner's labels, host= included (core/runner_labels.h).
  RunnerLabels labels;
  // A database server that runners on several hosts share: the lease
  // holder leaves planned slots pending for runners, every daemon claims the
  // pending runs its labels allow, and a daemon that finds the lease held
  // runs as a runner until it can take it (docs/daemon.md, "Runners").
  bool shared_database = false;
  // How long an unavailable database (busy past the connection's timeout, a
  // full disk, a server that does not answer) may keep the daemon from
  // taking the lease at start: it retries with the store backoff meanwhile
  // (ORRERY_BUSY_TIMEOUT_MS by default, as a command would wait).
  DurationMs start_patience_ms = 5'000;
  // Work items admitted or running at once over every route (0: no cap),
  // kept by the lease holder's admission (docs/admission.md).
  int global_max_running = 0;
};

struct DaemonResult {
  std::vector<std::string> started;  // ids of the runs it started, in order (--once)
  bool interrupted = false;          // --once stopped by a signal before its runs ended
};

// What the daemon acts through. Tests give fakes: a clock they move, a
// table of processes, events that move the clock to each deadline, a
// launcher that records what it is asked to start.
struct DaemonSystem {
  Clock& clock;
  ProcessControl& processes;  // which supervisors live, signals, this host's name
  Events& events;             // where the daemon waits
  Launcher& launcher;         // starts the supervisor of each claim
  ProcessIdentity self;       // this daemon's process, as its lease and runner row record it
};

// Runs the daemon until a signal (or, --once, until its runs ended), on the
// machine's clock, processes, event loop and supervisor launcher; it ignores
// SIGPIPE and raises the soft limit on open descriptors.
// Errors: the lease held by another daemon (on a file; on a shared database
// the daemon runs as a runner meanwhile) or lost (conflict, exit 4), a store
// that cannot be read at start.
Result<DaemonResult> run_daemon(Store& store, const DaemonOptions& options, DaemonLog& log);

// The same through `system`.
Result<DaemonResult> run_daemon(Store& store, const DaemonOptions& options, DaemonLog& log,
                                const DaemonSystem& system);

// A backoff that starts at kFirstRetryMs and doubles up to kMaxRetryMs.
class StoreBackoff {
 public:
  DurationMs next() {
    const DurationMs delay = delay_;
    delay_ = std::min(delay_ * 2, kMaxRetryMs);
    return delay;
  }
  void reset() { delay_ = kFirstRetryMs; }

 private:
  DurationMs delay_ = kFirstRetryMs;
};

}  // namespace orrery
