#include "core/workflow.h"

#include <algorithm>

#include "core/enum_names.h"

namespace orrery {
namespace {

constexpr NameTable<WorkflowStatus, 2> kWorkflowStatusNames{{
    {WorkflowStatus::kActive, "active"},
    {WorkflowStatus::kArchived, "archived"},
}};

constexpr NameTable<WorkflowRunStatus, 5> kRunStatusNames{{
    {WorkflowRunStatus::kPending, "pending"},
    {WorkflowRunStatus::kRunning, "running"},
    {WorkflowRunStatus::kSucceeded, "succeeded"},
    {WorkflowRunStatus::kFailed, "failed"},
    {WorkflowRunStatus::kCancelled, "cancelled"},
}};

constexpr NameTable<StepStatus, 7> kStepStatusNames{{
    {StepStatus::kPending, "pending"},
    {StepStatus::kRunning, "running"},
    {StepStatus::kSucceeded, "succeeded"},
    {StepStatus::kFailed, "failed"},
    {StepStatus::kTimedOut, "timed_out"},
    {StepStatus::kSkipped, "skipped"},
    {StepStatus::kCancelled, "cancelled"},
}};

}  // namespace

const char* workflow_status_name(WorkflowStatus status) {
  return enum_name(status, kWorkflowStatusNames);
}

const char* workflow_run_status_name(WorkflowRunStatus status) {
  return enum_name(status, kRunStatusNames);
}

Result<WorkflowRunStatus> parse_workflow_run_status(std::string_view text) {
  return parse_enum_name(text, kRunStatusNames, "workflow run status");
}

const char* step_status_name(StepStatus status) { return enum_name(status, kStepStatusNames); }

Result<StepStatus> parse_step_status(std::string_view text) {
  return parse_enum_name(text, kStepStatusNames, "step status");
}

bool is_finished(WorkflowRunStatus status) {
  return status != WorkflowRunStatus::kPending && status != WorkflowRunStatus::kRunning;
}

bool is_finished(StepStatus status) {
  return status != StepStatus::kPending && status != StepStatus::kRunning;
}

StepStatus step_status_of(RunStatus attempt_status) {
  switch (attempt_status) {
    case RunStatus::kSucceeded:
      return StepStatus::kSucceeded;
    case RunStatus::kTimedOut:
      return StepStatus::kTimedOut;
    case RunStatus::kCancelled:
      return StepStatus::kCancelled;
    case RunStatus::kRunning:
    case RunStatus::kQueued:
    case RunStatus::kPending:
      return StepStatus::kRunning;
    default:
      return StepStatus::kFailed;  // failed, abandoned, skipped
  }
}

std::string step_account(const WorkflowStep& step) {
  if (!step.target.agent || step.account.empty()) return cooldown_account(step.target);
  return std::string(provider_name(step.target.agent->provider)) + ":" + step.account;
}

std::vector<PhaseAccounting> account_attempts(const std::vector<StepAttempt>& attempts) {
  std::vector<PhaseAccounting> phases;
  for (const StepAttempt& attempt : attempts) {
    auto phase = std::find_if(phases.begin(), phases.end(),
                              [&](const PhaseAccounting& p) { return p.phase == attempt.phase; });
    if (phase == phases.end()) phase = phases.insert(phases.end(), {attempt.phase, {}});
    Accounting& totals = phase->totals;
    totals.attempts += 1;
    totals.input_tokens += attempt.usage.input_tokens.value_or(0);
    totals.output_tokens += attempt.usage.output_tokens.value_or(0);
    totals.cost_usd += attempt.usage.cost_usd.value_or(0);
  }
  return phases;
}

Accounting total_of(const std::vector<PhaseAccounting>& phases) {
  Accounting total;
  for (const PhaseAccounting& phase : phases) {
    total.attempts += phase.totals.attempts;
    total.input_tokens += phase.totals.input_tokens;
    total.output_tokens += phase.totals.output_tokens;
    total.cost_usd += phase.totals.cost_usd;
  }
  return total;
}

std::string dispatch_id(const std::string& run_id, const std::string& step_id, int attempt) {
  return run_id + "/" + step_id + "/" + std::to_string(attempt);
}

}  // namespace orrery
