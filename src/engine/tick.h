// The daemon's tick (docs/daemon.md, "The tick"): everything one wake-up
// of the daemon does with the store, in order:
//   1. recover runs whose supervisor is gone or whose lease expired
//      (exec/recovery.h), when asked (at start, after a supervisor exited
//      without finishing its run, a run lease's end, each lease heartbeat);
//   2. expire loops past expires_at, when asked (at start and each lease
//      heartbeat: a claim refuses an expired loop in any case, so this only
//      brings the status up to date);
//   3. settle finished runs (engine/settling.h): retries, the next slot of
//      fixed-delay and dynamic loops, once loops completed;
//   4. plan every due loop and every loop holding queued rows, oldest due
//      first (engine/planning.h), and commit all their plans in ONE fenced
//      transaction (Store::commit_plans).
// It returns the claims to start and the runs to stop; starting and
// stopping processes is the daemon's (engine/daemon.h).
//
// Invariants: every write is fenced by the daemon lease; a "daemon lease
// lost" error is returned at once, before anything else is written; a slot
// is only ever marked by the store's guarded writes, never by the tick on
// its own.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "exec/launcher.h"
#include "exec/process_control.h"
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

// The steps of a tick that are not done every time (each reads or writes
// more than a tick otherwise needs).
struct TickSteps {
  bool recover = false;
  bool expire = false;
};

// One line of the daemon's log.
using EventSink = std::function<void(const std::string&)>;

// Provider account -> the end of its cooldown.
using CooldownMap = std::unordered_map<std::string, TimeMs>;
std::optional<TimeMs> cooldown_of(const CooldownMap& cooldowns, const Loop& loop);

// `processes` tells recovery which supervisors live and takes its signals.
Result<TickReport> run_tick(Store& store, ProcessControl& processes, const TickSettings& settings,
                            const TickTimes& times, TickSteps steps, const EventSink& log);

}  // namespace orrery
