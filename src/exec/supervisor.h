// The per-run supervisor (docs/execution.md): `orrery supervise RUN
// --token-fd N`, the claim token read from an inherited descriptor, never
// from argv.
//
// It starts the target held before exec in its own process group, records
// the target's and its own identity through the store and only then lets the
// target run (if recording fails, the target never runs); keeps the claim
// (ClaimKeeper: heartbeats every lease/3, every error but a conflict
// retried within the stored lease); streams
// stdout and stderr into $home/runs/<run>/stdout.log and stderr.log
// (LogFile: scrubbed, size-limited, each attempt after the first marked);
// enforces the total and idle timeouts; stops on SIGTERM, SIGINT or SIGHUP;
// and when the target exits, stops what is left of its process group
// (SIGTERM, SIGKILL after kKillGraceMs). Every failure it can see ends the
// run with the reason: succeeded, failed, timed_out or cancelled. If the
// claim is lost (a conflict), it stops the target's group (SIGTERM, SIGKILL
// after kKillGraceMs) and returns without finalizing; if the lease runs out
// while the store fails, it stops the target the same way and the outcome
// is kept for recovery.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "exec/claim_keeper.h"
#include "exec/env.h"
#include "exec/goal_handoff.h"
#include "store/store.h"

namespace orrery {

inline constexpr DurationMs kKillGraceMs = 2000;
inline constexpr DurationMs kDrainMs = 1000;  // late output after the target exits

struct SuperviseRequest {
  std::string home;
  std::string run_id;
  std::string token;
};

// One supervised process, from a loop's run or a workflow step's attempt.
struct SupervisedJob {
  Claim claim;      // a loop run's, or a step attempt's (its kind says which)
  std::string dir;  // its RunDirectory (store/home_layout.h)
  Target target;
  DurationMs lease_ms = 0;
  TimeMs lease_expires_at = 0;
  std::optional<DurationMs> timeout_ms;
  std::optional<DurationMs> idle_timeout_ms;
  std::int64_t log_limit_bytes = kDefaultLogLimitBytes;
  int attempt = 1;
  TimeMs started_at = 0;
  std::string cooldown_account;  // an agent target's usage-limit account
  // A step's ORRERY_OUTPUT file, read into the outcome's outputs (empty: none).
  std::string outputs_path;
  // The goal this work is a turn of (exec/goal_handoff.h); empty: none.
  std::optional<GoalHandoff> goal;
  // An agent prompt's section on the previous failed attempt of the work
  // item (core/feedback_prompt.h); "" : none.
  std::string prompt_feedback;
  // A workflow step's agent prompt is a template (core/prompt_template.h)
  // filled in from these values (core/prompt_values.h); "" : not a template.
  std::string prompt_values;
  // What the job does beside its target (a step's worker, exec/worker_run.h):
  // on_beat with every renewal of the claim (an error stops the target,
  // failed with its message); before_finish on the outcome about to be
  // written (it may change it).
  std::function<Status()> on_beat;
  std::function<void(RunOutcome&)> before_finish;
};

// The target's whole environment and the secret values scrubbed verbatim;
// the directory it runs in when not the target's own (a worktree), and a
// note written to the start of its stderr log.
struct JobEnvironment {
  std::vector<EnvVar> environment;
  std::vector<std::string> secret_values;
  std::string cwd;
  std::string note;
};

// Prepares the environment from the supervisor's own, once the logs are
// open; an error fails the job with its message.
using JobSetup = std::function<Result<JobEnvironment>(const std::vector<EnvVar>& inherited)>;

// Supervises one job to its end (the rules above); the caller notifies
// whoever waits for it.
Status supervise_job(ClaimLedger& ledger, Cooldowns& cooldowns, const SupervisedJob& job,
                     const JobSetup& setup, Env& env = system_env());

// Runs the whole life of one run; returns once the run is finalized (or the
// claim was lost, reported as a conflict). Blocks SIGTERM, SIGINT and SIGHUP
// for the calling thread (they are read from a signalfd) and ignores SIGPIPE.
// The run and its loop are read from `store`; the claim is kept through
// `ledger` (the store itself, unless a test puts a fault in between).
Status supervise(Store& store, ClaimLedger& ledger, const SuperviseRequest& request,
                 Env& env = system_env());
inline Status supervise(Store& store, const SuperviseRequest& request, Env& env = system_env()) {
  return supervise(store, store, request, env);
}

}  // namespace orrery
