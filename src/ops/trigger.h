// Triggering a loop now (docs/cli.md, "trigger"): the loop's overlap policy
// decides what happens while a run of it is in progress (core/trigger_overlap.h);
// then a manual slot is claimed from now and its supervisor started here, or
// the run is left pending for a runner with the loop's labels
// (docs/daemon.md, "Runners"), or queued behind the run in progress for the
// daemon to start. Waiting for the run and printing it are the face's.
//
// Invariants: an archived loop is never triggered; a queued row is written
// by one plan commit guarded by the loop's state version, so it never races
// a tick into a second row; `replace` signals only supervisors alive on this
// host whose pid and start time match the run's record, and waits a while
// for them to finish their runs cancelled; a run whose supervisor could not
// start is finished failed before this returns (exec/launcher.h).
#pragma once

#include <optional>
#include <string>

#include "core/run.h"
#include "exec/launcher.h"
#include "exec/process_control.h"
#include "store/store.h"

namespace orrery::ops {

// What triggering needs besides the request: the store, where runs live,
// how supervisors start, the processes `replace` may signal and the instant
// of the trigger (manual slots are whole milliseconds from it).
struct TriggerContext {
  Store& store;
  std::string home;              // the data directory: runs' directories, the daemon's wake-ups
  bool shared_database = false;  // a database server runners on other hosts share
  Launcher& launcher;
  ProcessControl& processes;  // this host's name, and the supervisors `replace` stops
  std::string claimant;       // who claims the slot: "trigger@HOST:PID"
  TimeMs now = 0;
};

struct TriggerRequest {
  std::string loop;    // its id, id prefix or name
  bool force = false;  // run now whatever the overlap policy says
  // The caller waits for the run to end: a queued run then needs a live
  // daemon, and an exec'd supervisor stays the caller's child to wait for.
  bool wait = false;
  bool here = false;  // run on this host even without the loop's --machine labels
};

enum class TriggerOutcome {
  kStarted,        // claimed here; its supervisor runs it
  kUnstarted,      // claimed here; its supervisor could not start, so it is failed
  kQueued,         // queued behind a run in progress, for the daemon to start
  kLeftToRunners,  // pending for a runner with the loop's labels
};

struct Triggered {
  TriggerOutcome outcome = TriggerOutcome::kStarted;
  Run run;                         // the new run, as claimed or queued (as failed: kUnstarted)
  std::string behind;              // kQueued: the run in progress it waits behind
  StartedSupervisor supervisor;    // kStarted
  std::optional<Error> unstarted;  // kUnstarted: why its supervisor did not start
};

Result<Triggered> trigger_loop(const TriggerContext& context, const TriggerRequest& request);

// Who a trigger of this process claims as: "trigger@HOST:PID".
std::string trigger_claimant(const std::string& host);

// Whether a daemon holds a live lease at `now` (to start a queued run).
Result<bool> daemon_running(DaemonLeases& leases, TimeMs now);

}  // namespace orrery::ops
