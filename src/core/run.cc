#include "core/run.h"

#include "core/enum_names.h"

namespace orrery {
namespace {

constexpr NameTable<RunStatus, 9> kRunStatuses{{
    {RunStatus::kRunning, "running"},
    {RunStatus::kSucceeded, "succeeded"},
    {RunStatus::kFailed, "failed"},
    {RunStatus::kTimedOut, "timed_out"},
    {RunStatus::kAbandoned, "abandoned"},
    {RunStatus::kSkipped, "skipped"},
    {RunStatus::kCancelled, "cancelled"},
    {RunStatus::kQueued, "queued"},
    {RunStatus::kPending, "pending"},

}};

}  // namespace

const char* run_status_name(RunStatus status) { return enum_name(status, kRunStatuses); }

Result<RunStatus> parse_run_status(std::string_view text) {
  return parse_enum_name(text, kRunStatuses, "run status");
}

bool is_terminal(RunStatus status) {
  return status != RunStatus::kRunning && status != RunStatus::kQueued &&
         status != RunStatus::kPending;
}

bool is_retryable(RunStatus status) {
  return status == RunStatus::kFailed || status == RunStatus::kTimedOut ||
         status == RunStatus::kAbandoned;
}

}  // namespace orrery
