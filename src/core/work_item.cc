#include "core/work_item.h"

#include <algorithm>

#include "core/enum_names.h"

namespace orrery {
namespace {

constexpr NameTable<ItemStatus, 8> kStatuses{{
    {ItemStatus::kQueued, "queued"},
    {ItemStatus::kDeferred, "deferred"},
    {ItemStatus::kAdmitted, "admitted"},
    {ItemStatus::kRunning, "running"},
    {ItemStatus::kSucceeded, "succeeded"},
    {ItemStatus::kFailed, "failed"},
    {ItemStatus::kDeadLetter, "dead_letter"},
    {ItemStatus::kCancelled, "cancelled"},
}};
constexpr NameTable<EnqueueOutcome, 3> kOutcomes{{
    {EnqueueOutcome::kCreated, "created"},
    {EnqueueOutcome::kRefreshed, "refreshed"},
    {EnqueueOutcome::kDuplicate, "duplicate"},
}};

}  // namespace

const char* item_status_name(ItemStatus status) { return enum_name(status, kStatuses); }
Result<ItemStatus> parse_item_status(std::string_view text) {
  return parse_enum_name(text, kStatuses, "item status");
}
const char* enqueue_outcome_name(EnqueueOutcome outcome) { return enum_name(outcome, kOutcomes); }

bool item_is_waiting(ItemStatus status) {
  return status == ItemStatus::kQueued || status == ItemStatus::kDeferred;
}

bool item_holds_capacity(ItemStatus status) {
  return status == ItemStatus::kAdmitted || status == ItemStatus::kRunning;
}

bool item_is_requeueable(ItemStatus status) {
  return status == ItemStatus::kSucceeded || status == ItemStatus::kFailed ||
         status == ItemStatus::kDeadLetter || status == ItemStatus::kCancelled;
}

EnqueueOutcome enqueue_outcome(std::optional<ItemStatus> existing) {
  if (!existing) return EnqueueOutcome::kCreated;
  return item_is_waiting(*existing) ? EnqueueOutcome::kRefreshed : EnqueueOutcome::kDuplicate;
}

std::string append_reason(std::string_view previous, std::string_view reason) {
  if (previous.empty()) return std::string(reason);
  if (reason.empty()) return std::string(previous);
  return std::string(previous) + "; " + std::string(reason);
}

ItemStatus item_status_after_run(WorkflowRunStatus run_status, int attempts, int max_attempts) {
  switch (run_status) {
    case WorkflowRunStatus::kSucceeded:
      return ItemStatus::kSucceeded;
    case WorkflowRunStatus::kCancelled:
      return ItemStatus::kCancelled;
    default:
      return attempts < max_attempts ? ItemStatus::kFailed : ItemStatus::kDeadLetter;
  }
}

std::int64_t effective_priority(std::int64_t priority, TimeMs queued_at, TimeMs now,
                                DurationMs aging_ms) {
  const std::int64_t base = std::clamp(priority, -kMaxItemPriority, kMaxItemPriority);
  if (aging_ms <= 0 || now <= queued_at) return base;
  const std::int64_t raised = (now - queued_at) / aging_ms;
  return std::min(base + std::min(raised, kMaxEffectivePriority), kMaxEffectivePriority);
}

}  // namespace orrery
