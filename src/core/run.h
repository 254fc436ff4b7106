// Run: one row per (loop, scheduled slot) and its outcome (docs/storage.md).
//
// Invariants: (loop_id, scheduled_for) is unique; a running run has a
// claimant, a claim token and a lease; a terminal run has none of them. A
// skipped slot has attempt 1 and no start time. A queued run is a slot held
// until the loop's running run ends (or capacity frees): it has attempt 1,
// no claimant, no start time, and becomes running when claimed. A pending
// run is a slot the scheduler planned for any runner whose labels match its
// loop's --machine selector (docs/daemon.md, "Runners"): it has its attempt
// number, no claimant, no start time and no lease, and becomes running when
// a runner claims it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "core/time.h"

namespace orrery {

enum class RunStatus {
  kRunning,
  kSucceeded,
  kFailed,
  kTimedOut,
  kAbandoned,
  kSkipped,
  kCancelled,
  kQueued,
  kPending
};

const char* run_status_name(RunStatus status);
Result<RunStatus> parse_run_status(std::string_view text);
// Neither running, queued nor pending.
bool is_terminal(RunStatus status);
// failed, timed_out and abandoned slots may be claimed again while attempts remain.
bool is_retryable(RunStatus status);

// A process and the time it started, so that a reused pid is not mistaken
// for it.
struct ProcessIdentity {
  int pid = 0;
  std::optional<TimeMs> started_at;
};

struct Usage {
  std::optional<std::int64_t> input_tokens;
  std::optional<std::int64_t> output_tokens;
  std::optional<double> cost_usd;
};

struct Run {
  std::string id;
  std::string loop_id;
  std::string loop_name;
  TimeMs scheduled_for = 0;
  int attempt = 1;
  RunStatus status = RunStatus::kRunning;
  std::optional<TimeMs> started_at;
  std::optional<TimeMs> finished_at;
  std::string claimed_by;
  std::string claim_token;
  // The host whose daemon or command claimed the run: its supervisor and
  // target run there, its logs are on that host's disk. Empty in rows from
  // before schema version 5 (one host then).
  std::string host;
  std::optional<TimeMs> lease_expires_at;
  std::optional<ProcessIdentity> target;  // the target's pid and start time
  std::optional<int> pgid;
  std::optional<ProcessIdentity> supervisor;
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::optional<DurationMs> duration_ms;
  std::string error;
  std::string skip_reason;
  std::string stdout_tail;
  std::string stderr_tail;
  Usage usage;
  bool usage_limited = false;  // failed on a provider limit: does not use up an attempt
  // Re-attempts of this slot that did not use up an attempt (a usage limit,
  // a reclaimed expired lease); at most kMaxFreeReattempts (docs/storage.md).
  int free_reattempts = 0;
  // A dynamic run's own choice of the delay from its finish to its loop's
  // next slot (`orrery run next-in`), clamped to the schedule's [min, max].
  std::optional<DurationMs> next_in_ms;
  // False while a run the daemon planned has finished but its effect on the
  // loop's schedule (a retry, the next slot of a fixed-delay or dynamic
  // loop, a once loop's completion) is not yet applied (docs/storage.md,
  // "Settling a finished run"). Manual runs are always settled, except one
  // that started a queued row (a slot the daemon planned).
  bool settled = true;
  // A running run someone asked to stop from another host (overlap
  // `replace`): its own runner signals its supervisor (docs/daemon.md,
  // "Runners").
  bool cancel_requested = false;
  TimeMs created_at = 0;
  TimeMs updated_at = 0;
};

// Whether the run's processes are on `host` (the local host): only then may
// its pids be probed or signalled. A run of another host is recovered by its
// lease's expiry alone (docs/storage.md, "Runs on several hosts").
inline bool runs_on_host(const Run& run, const std::string& host) {
  return run.host.empty() || run.host == host;
}

// The reason `run cancel --reason` records: prose (core/text.h,
// check_user_text) of at most kMaxCancelReasonBytes.
inline constexpr std::size_t kMaxCancelReasonBytes = 1000;
Status check_cancel_reason(std::string_view reason);

}  // namespace orrery
