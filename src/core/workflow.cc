#include "core/workflow.h"

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

std::string dispatch_id(const std::string& run_id, const std::string& step_id, int attempt) {
  return run_id + "/" + step_id + "/" + std::to_string(attempt);
}

}  // namespace orrery
