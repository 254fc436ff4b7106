#include "core/run.h"

#include "core/enum_names.h"
#include "core/text.h"

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

Status check_cancel_reason(std::string_view reason) {
  if (auto prose = check_user_text(reason, "--reason", TextLines::kMany); !prose) return prose;
  if (reason.size() <= kMaxCancelReasonBytes) return Ok{};
  return usage_error("--reason is " + std::to_string(reason.size()) + " bytes long; at most " +
                     std::to_string(kMaxCancelReasonBytes) + " are allowed");
}

}  // namespace orrery
