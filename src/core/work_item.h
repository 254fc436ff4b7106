// Work items (docs/admission.md): one unit of work on a route, unique by
// (route, key), and the rules of its life cycle —
//
//   queued -> admitted -> running -> succeeded
//                                 -> failed (a retry waits) -> queued
//                                 -> dead_letter (its attempts spent)
//   queued <-> deferred (its route paused and resumed); any open item -> cancelled
//
// Invariants:
// - enqueueing a key that exists refreshes a queued or deferred item and
//   never changes an admitted, running, failed or finished one (it is a
//   duplicate, and says what the item is);
// - only a resting item — succeeded, failed, dead_letter, cancelled — is
//   requeued by hand;
// - admitted and running items hold their route's capacity;
// - reasons accumulate: each new one is appended after "; ".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "core/time.h"
#include "core/workflow.h"

namespace orrery {

enum class ItemStatus {
  kQueued,
  kDeferred,
  kAdmitted,
  kRunning,
  kSucceeded,
  kFailed,
  kDeadLetter,
  kCancelled,
};

const char* item_status_name(ItemStatus status);
Result<ItemStatus> parse_item_status(std::string_view text);

// Queued or deferred: waiting to be admitted, refreshed by an enqueue.
bool item_is_waiting(ItemStatus status);
// Admitted or running: counts against every limit.
bool item_holds_capacity(ItemStatus status);
// Succeeded, failed, dead_letter or cancelled: what `item requeue` reopens.
bool item_is_requeueable(ItemStatus status);

enum class EnqueueOutcome { kCreated, kRefreshed, kDuplicate };
const char* enqueue_outcome_name(EnqueueOutcome outcome);

// What an enqueue of a key does, given the status of the item that has the
// key already (none: a new item).
EnqueueOutcome enqueue_outcome(std::optional<ItemStatus> existing);

// `reason` after `previous`, joined by "; " (either may be empty).
std::string append_reason(std::string_view previous, std::string_view reason);

// Where an item goes when the workflow run it was running ends with
// `run_status` (a finished status) after `attempts` attempts (the one that ended included) of
// at most `max_attempts`: succeeded, cancelled, failed while attempts
// remain (its retry waits), dead_letter once they are spent.
ItemStatus item_status_after_run(WorkflowRunStatus run_status, int attempts, int max_attempts);

// Priorities are integers within +-kMaxItemPriority, higher first.
inline constexpr std::int64_t kMaxItemPriority = 1'000'000;

// A queued item's priority raised by one for every `aging_ms` it has been
// waiting since `queued_at` (no aging when `aging_ms` is 0); never past
// kMaxEffectivePriority, and never lowered by a clock that went back.
inline constexpr std::int64_t kMaxEffectivePriority = 1'000'000'000;
std::int64_t effective_priority(std::int64_t priority, TimeMs queued_at, TimeMs now,
                                DurationMs aging_ms);

}  // namespace orrery
