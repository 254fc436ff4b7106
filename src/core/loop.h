// Loop: a named, scheduled target and its policies (docs/scheduling.md). This is the
// record the store keeps; validation of user input happens in loop_spec.h.
//
// Invariants: an archived loop is paused and remembers the status it had;
// next_run_at is empty only for loops that will not run again (completed,
// expired), have nothing scheduled, or wait for a run to finish (fixed-delay,
// dynamic and once loops while their slot runs).
//
// A loop has two parts, each with its own version (docs/storage.md, "Loop
// versions"): its configuration (what `add` and `edit` set: name,
// schedule, target, policies) and its schedule state (ScheduleState below:
// what the daemon advances and pause/resume/archive change). A write of one
// part is guarded by that part's version and bumps it, so a rename never
// conflicts with a tick.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/agent_adapter.h"
#include "core/result.h"
#include "core/schedule.h"
#include "core/slot_plan.h"
#include "core/time.h"

namespace orrery {

enum class LoopStatus { kActive, kPaused, kExpired, kCompleted };
enum class OverlapPolicy { kSkip, kQueue, kAllow, kReplace };
enum class RetryBackoff { kFixed, kExponential };
enum class TargetType { kCommand, kAgent, kWorkflow };

const char* loop_status_name(LoopStatus status);
Result<LoopStatus> parse_loop_status(std::string_view text);
const char* overlap_name(OverlapPolicy policy);
Result<OverlapPolicy> parse_overlap(std::string_view text);
const char* backoff_name(RetryBackoff backoff);
Result<RetryBackoff> parse_backoff(std::string_view text);
const char* target_type_name(TargetType type);

using EnvVar = std::pair<std::string, std::string>;

struct Target {
  TargetType type = TargetType::kCommand;
  std::vector<std::string> argv;        // command without a shell
  bool shell = false;                   // command line run by /bin/sh -c
  std::string command_line;             // when shell
  std::string cwd;                      // empty: the daemon's working directory
  std::vector<EnvVar> env;              // --env
  std::vector<std::string> secret_env;  // names of --secret-env; values never stored here
  std::optional<AgentTarget> agent;     // when type is kAgent
  std::string workflow_id;              // when kWorkflow: the workflow version it runs
  std::string input_json;               // when kWorkflow: its input, a JSON object
  friend bool operator==(const Target&, const Target&) = default;
};

// Each output stream's log file is kept under this size (docs/execution.md).
inline constexpr std::int64_t kDefaultLogLimitBytes = 64LL << 20;

struct Loop {
  std::string id;
  std::string name;
  std::string description;
  LoopStatus status = LoopStatus::kActive;
  bool archived = false;
  std::optional<LoopStatus> archived_from_status;
  Schedule schedule;
  Target target;
  std::vector<EnvVar> machine;  // runner labels this loop needs
  std::optional<TimeMs> next_run_at;
  std::optional<TimeMs> retry_scheduled_for;
  // While a retry is pending: the series' next slot when the retry was
  // scheduled, where planning resumes after the retry (empty: the slot after
  // the retried one), so slots already planned are not planned again.
  std::optional<TimeMs> series_resume_at;
  CatchUpPolicy catch_up;
  OverlapPolicy overlap = OverlapPolicy::kSkip;
  int max_attempts = 1;
  DurationMs retry_delay_ms = 60'000;
  RetryBackoff retry_backoff = RetryBackoff::kFixed;
  DurationMs lease_ms = 30 * 60'000;
  std::optional<DurationMs> timeout_ms;
  std::optional<DurationMs> idle_timeout_ms;
  std::int64_t log_limit_bytes = kDefaultLogLimitBytes;  // per stream, --log-limit
  // The route its succeeded runs feed (docs/admission.md, "Feeds"); empty:
  // none. A reference (name or id) until the CLI resolves it to an id.
  std::string feed_route_id;
  // The goal that paused it (docs/goals.md, "Stops"): resuming the goal
  // resumes the loop; empty when a person paused it, or it is not paused.
  std::string paused_by_goal;
  std::optional<TimeMs> expires_at;
  std::int64_t missed_count = 0;
  TimeMs created_at = 0;
  TimeMs updated_at = 0;
  std::int64_t config_version = 1;  // bumped by every write of the configuration
  std::int64_t state_version = 1;   // bumped by every write of the schedule state
};

// The schedule state of a loop: what a tick or a settled run changes.
struct ScheduleState {
  LoopStatus status = LoopStatus::kActive;
  bool archived = false;
  std::optional<LoopStatus> archived_from_status;
  std::optional<TimeMs> next_run_at;
  std::optional<TimeMs> retry_scheduled_for;
  std::optional<TimeMs> series_resume_at;
  std::int64_t missed_count = 0;
  friend bool operator==(const ScheduleState&, const ScheduleState&) = default;
};

ScheduleState schedule_state(const Loop& loop);
void set_schedule_state(Loop& loop, const ScheduleState& state);

// The provider account whose usage-limit cooldown holds the loop's runs back
// (provider, or provider:auth-profile); empty for targets that are not agents.
std::string cooldown_account(const Target& target);

}  // namespace orrery
