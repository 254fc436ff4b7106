// Workflows (docs/workflows.md): a versioned spec of steps that form a DAG,
// and the records of its runs — step runs, append-only attempts and an
// append-only event journal.
//
// Invariants:
// - a spec that passed validation (core/workflow_spec.h) has 1 to
//   kMaxWorkflowSteps steps with unique ids of the step-id alphabet, known
//   dependencies, no self-dependency and no cycle; every target is a command
//   or an agent target that validates;
// - a workflow run's steps are created with it (pending), one per spec step,
//   sequence 1..N in spec order; a step is finished once it is succeeded,
//   failed, timed_out, skipped or cancelled, and a finished step never runs
//   again;
// - every attempt of a step has a stable dispatch id (run id, step id and
//   attempt number) and is never deleted or renumbered;
// - a run's journal has sequences 1, 2, 3… without gaps, starting with
//   `created`; once the run is finished its terminal event is the last.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/loop.h"
#include "core/result.h"
#include "core/run.h"
#include "core/step_worktree.h"
#include "core/time.h"

namespace orrery {

inline constexpr int kMaxWorkflowSteps = 1000;
inline constexpr std::int64_t kMaxWorkflowSpecBytes = 1LL << 20;  // 1 MiB
inline constexpr int kMaxStepRetries = 100;
inline constexpr std::size_t kMaxStepIdBytes = 64;
inline constexpr int kMaxParallelSteps = 256;
inline constexpr int kDefaultParallelSteps = 4;
inline constexpr std::int64_t kMaxWorkflowInputBytes = 64 * 1024;
inline constexpr DurationMs kDefaultEngineLeaseMs = 30'000;
inline constexpr DurationMs kDefaultStepLeaseMs = 30'000;

// One step of a spec. Its target is a command or agent target (never a
// workflow); its cwd, when empty, is the run's.
struct WorkflowStep {
  std::string id;
  Target target;
  std::vector<std::string> depends_on;
  bool continue_on_failure = false;
  std::optional<DurationMs> timeout_ms;
  // The provider account profile the step's usage limits count against
  // (empty: the target's own account, core/loop.h cooldown_account).
  std::string account;
  int retries = 0;        // attempts after the first, 0..kMaxStepRetries
  StepWorktree worktree;  // docs/workers.md: off unless the step asks for one
  friend bool operator==(const WorkflowStep&, const WorkflowStep&) = default;
};

// What a spec file says, validated.
struct WorkflowSpec {
  std::string name;
  std::string description;
  std::string goal;  // an objective, kept for goals (docs/workflows.md)
  std::vector<WorkflowStep> steps;
  friend bool operator==(const WorkflowSpec&, const WorkflowSpec&) = default;
};

enum class WorkflowStatus { kActive, kArchived };

// One stored version of a spec. Each version has its own id; versions of a
// name count from 1.
struct Workflow {
  std::string id;
  std::string name;
  int version = 1;
  WorkflowStatus status = WorkflowStatus::kActive;
  WorkflowSpec spec;
  TimeMs created_at = 0;
  TimeMs updated_at = 0;
};

enum class WorkflowRunStatus { kPending, kRunning, kSucceeded, kFailed, kCancelled };

enum class StepStatus { kPending, kRunning, kSucceeded, kFailed, kTimedOut, kSkipped, kCancelled };

// An attempt's status: running, then one of the terminal ones; abandoned
// when its supervisor died and the step was reclaimed.
using AttemptStatus = RunStatus;  // running succeeded failed timed_out cancelled abandoned

const char* workflow_status_name(WorkflowStatus status);
const char* workflow_run_status_name(WorkflowRunStatus status);
Result<WorkflowRunStatus> parse_workflow_run_status(std::string_view text);
const char* step_status_name(StepStatus status);
Result<StepStatus> parse_step_status(std::string_view text);
bool is_finished(WorkflowRunStatus status);  // succeeded, failed or cancelled
bool is_finished(StepStatus status);         // neither pending nor running
// The step status a finished attempt leaves when it is the step's last.
StepStatus step_status_of(RunStatus attempt_status);

// Token and cost accounting of attempts, summed.
struct Accounting {
  std::int64_t attempts = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  double cost_usd = 0;
  friend bool operator==(const Accounting&, const Accounting&) = default;
};

struct PhaseAccounting {
  std::string phase;  // "execute" for step attempts
  Accounting totals;
  friend bool operator==(const PhaseAccounting&, const PhaseAccounting&) = default;
};

// A step's record in one run.
struct StepRun {
  std::string run_id;
  std::string step_id;
  int sequence = 0;  // 1-based, spec order
  StepStatus status = StepStatus::kPending;
  int attempts = 0;                  // attempts made so far
  int max_attempts = 1;              // retries + 1
  std::string dispatch_id;           // the current (or last) attempt's
  std::optional<TimeMs> started_at;  // of the first attempt
  std::optional<TimeMs> finished_at;
  std::optional<int> exit_code;
  std::string error;
  std::string outputs_json = "{}";  // the last attempt's ORRERY_OUTPUT, an object of strings
  TimeMs updated_at = 0;
};

// One dispatch of a step: its own claim, lease and supervisor.
struct StepAttempt {
  std::string dispatch_id;  // stable: <run id>/<step id>/<attempt>
  std::string run_id;
  std::string step_id;
  int attempt = 1;
  std::string phase = "execute";
  RunStatus status = RunStatus::kRunning;
  std::string claimed_by;
  std::string claim_token;
  std::string host;
  std::optional<TimeMs> lease_expires_at;
  std::optional<ProcessIdentity> supervisor;
  std::optional<ProcessIdentity> target;
  std::optional<int> pgid;
  TimeMs started_at = 0;
  std::optional<TimeMs> finished_at;
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::string error;
  std::string stdout_tail;
  std::string stderr_tail;
  std::string outputs_json = "{}";
  Usage usage;
  bool usage_limited = false;
  TimeMs updated_at = 0;
};

struct WorkflowRun {
  std::string id;
  std::string workflow_id;
  std::string workflow_name;
  int workflow_version = 1;
  WorkflowRunStatus status = WorkflowRunStatus::kPending;
  std::string input_json = "{}";
  std::string idempotency_key;  // empty: none
  std::string loop_id;          // empty unless a loop's run started it
  std::string loop_run_id;
  std::string item_id;  // empty unless a work item started it (docs/admission.md)
  // The workflow's goal the run was published under (docs/goals.md, "A goal
  // over a fleet"); empty: none. Its tokens count towards that goal alone.
  std::string goal_id;
  std::string cwd;  // the steps' working directory unless a step names its own
  int max_parallel = kDefaultParallelSteps;
  // The engine lease: one driver at a time (docs/workflows.md).
  std::string driver;        // who holds or held it, e.g. drive@HOST:PID
  std::string driver_token;  // generation-prefixed, like claim tokens
  std::optional<TimeMs> driver_lease_expires_at;
  bool cancel_requested = false;
  std::string error;
  TimeMs created_at = 0;
  std::optional<TimeMs> started_at;
  std::optional<TimeMs> finished_at;
  TimeMs updated_at = 0;
};

// One entry of a run's journal.
struct WorkflowEvent {
  std::string run_id;
  std::int64_t sequence = 0;
  std::string event_type;  // created, step_started, step_succeeded, …
  std::string step_id;     // empty for run events
  std::string payload_json = "{}";
  TimeMs created_at = 0;
};

// The usage-limit account a step's attempts count against: the target's
// (core/loop.h cooldown_account), or provider:account when the step names
// an account; empty for command steps.
std::string step_account(const WorkflowStep& step);

// Attempts summed by phase, phases in order of first appearance.
std::vector<PhaseAccounting> account_attempts(const std::vector<StepAttempt>& attempts);

// The phases summed into one.
Accounting total_of(const std::vector<PhaseAccounting>& phases);

// The dispatch id of a step's attempt.
std::string dispatch_id(const std::string& run_id, const std::string& step_id, int attempt);

}  // namespace orrery
