// What a tick and its steps (engine/planning.h, engine/settling.h) share
// (docs/daemon.md, "The tick"): the daemon's settings, the instants a tick
// runs as of, what it reports back, and where it logs.
//
// Invariant: every write a tick makes is fenced by `fence`, the daemon
// lease, and stamped with `now`, the wall clock.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/run.h"
#include "exec/launcher.h"  // StoreLocation
#include "store/store.h"

namespace orrery {

inline constexpr int kDefaultMaxRunning = 64;
inline constexpr int kMaxMaxRunning = 10'000;

struct TickSettings {
  StoreLocation location;  // the data directory (run directories, recovery) and --db
  Fence fence;             // the daemon lease
  std::string claimant;    // daemon@HOST:PID
  int max_running = kDefaultMaxRunning;
  // Slots are left pending for runners instead of claimed by this daemon
  // (a database server shared by runners, docs/daemon.md "Runners").
  bool to_runners = false;
};

struct TickTimes {
  TimeMs now = 0;             // the wall clock: leases, expiry, writes
  TimeMs plan_now = 0;        // the instant slots are planned as of (daemon --once: its start)
  TimeMs watching_since = 0;  // slots due before it are missed (docs/scheduling.md)
};

struct TickReport {
  std::vector<ClaimedRun> claimed;  // to start, in claim order
  int pending = 0;                  // slots left pending for runners
  std::vector<Run> replaced;        // running runs to stop (overlap `replace`)
  bool more = false;                // work was left for another tick at once
  bool retry_soon = false;          // a conflict to retry shortly
  // A planned slot was found taken: the store handed its row to settlement
  // (Store::commit_plans), which the tick then does at once.
  bool handed_over = false;
};

// One line of the daemon's log.
using EventSink = std::function<void(const std::string&)>;

}  // namespace orrery
