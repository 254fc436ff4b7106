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

// Every status, in the order of an item's life.
inline constexpr ItemStatus kItemStatuses[] = {
    ItemStatus::kQueued,    ItemStatus::kDeferred, ItemStatus::kAdmitted,   ItemStatus::kRunning,
    ItemStatus::kSucceeded, ItemStatus::kFailed,   ItemStatus::kDeadLetter, ItemStatus::kCancelled};

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

// How many enqueues of a batch or a feed had each outcome.
struct EnqueueCounts {
  std::int64_t created = 0;
  std::int64_t refreshed = 0;
  std::int64_t duplicate = 0;
  void count(EnqueueOutcome outcome);
};

// `reason` after `previous`, joined by "; " (either may be empty).
std::string append_reason(std::string_view previous, std::string_view reason);

// Where an item goes when the workflow run it was running ends with
// `run_status` (a finished status) after `attempts` attempts (the one that ended included) of
// at most `max_attempts`: succeeded, cancelled, failed while attempts
// remain (its retry waits), dead_letter once they are spent.
ItemStatus item_status_after_run(WorkflowRunStatus run_status, int attempts, int max_attempts);

// What happened outside (docs/admission.md, "Invocations"): where it came
// from, what it is about, what was asked, and two JSON objects kept as
// given. A source's dedupe key names one invocation per source kind.
struct SourceRef {
  std::string kind;
  std::string id;
  std::string dedupe_key;  // empty: none
  friend bool operator==(const SourceRef&, const SourceRef&) = default;
};

struct SubjectRef {
  std::string kind;
  std::string id;
  std::string path;
  std::string url;
  friend bool operator==(const SubjectRef&, const SubjectRef&) = default;
};

struct Invocation {
  std::string id;
  SourceRef source;
  SubjectRef subject;
  std::string intent;
  std::string scope_json = "{}";
  std::string output_policy_json = "{}";
  TimeMs created_at = 0;
  TimeMs updated_at = 0;
};

struct WorkItem {
  std::string id;
  std::string route_id;
  std::string route_name;
  std::string key;
  ItemStatus status = ItemStatus::kQueued;
  std::int64_t priority = 0;
  std::string project;  // empty: none
  std::string group;    // empty: none
  int attempts = 0;     // runs started (a free return gives one back)
  int free_returns = 0;
  // Times it was admitted, never reset (a requeue resets attempts): names
  // the run of each admission (its idempotency key).
  std::int64_t admissions = 0;
  int max_attempts = 1;                   // its route's
  DurationMs priority_aging_ms = 0;       // its route's
  std::optional<TimeMs> next_attempt_at;  // a failed item's retry
  TimeMs queued_at = 0;                   // since when it waits (its age)
  std::string workflow_run_id;            // the run it is running or ran last
  std::string input_json = "{}";          // the workflow run's input
  std::string last_reason;
  // The last failed attempt's record for the next one (core/attempt_feedback.h);
  // "" : none.
  std::string feedback_json;
  Invocation invocation;
  TimeMs created_at = 0;
  TimeMs updated_at = 0;
};

// Item keys: the name rules, 1 to kMaxItemKeyCharacters code points.
inline constexpr int kMaxItemKeyCharacters = 200;
// --input, scope and output policy: at most this many bytes each.
inline constexpr std::size_t kMaxItemJsonBytes = 64 * 1024;
// Every other invocation text (source, subject, intent): at most this many bytes.
inline constexpr std::size_t kMaxInvocationTextBytes = 64 * 1024;
// An admitted item whose run could not be started goes back to the queue
// without spending an attempt at most this many times.
inline constexpr int kMaxFreeReturns = 3;

// Priorities are integers within +-kMaxItemPriority, higher first.
inline constexpr std::int64_t kMaxItemPriority = 1'000'000;

// What an enqueue gives, checked: the key (the name rules, at most
// kMaxItemKeyCharacters), project and group (the name rules, or empty), the
// priority's range, and every text of the invocation and the input: valid
// UTF-8 within its size limit. Whether the JSON texts are objects is the
// caller's to check (they are stored as given). The error names the field
// as the user gave it: an option of `enqueue`, or a field of a JSON line.
enum class FieldNames { kOptions, kJson };
Status check_item_fields(const WorkItem& item, FieldNames names = FieldNames::kOptions);

// A reason given by hand (item requeue, item cancel): UTF-8 of at most
// kMaxItemReasonBytes.
inline constexpr std::size_t kMaxItemReasonBytes = 4096;
Status check_item_reason(std::string_view reason);
// `text` of `field` valid UTF-8 of at most `max_bytes`; the error names both.
Status check_text(std::string_view text, const char* field, std::size_t max_bytes);

// A queued item's priority raised by one for every `aging_ms` it has been
// waiting since `queued_at` (no aging when `aging_ms` is 0); never past
// kMaxEffectivePriority, and never lowered by a clock that went back.
inline constexpr std::int64_t kMaxEffectivePriority = 1'000'000'000;
std::int64_t effective_priority(std::int64_t priority, TimeMs queued_at, TimeMs now,
                                DurationMs aging_ms);

}  // namespace orrery
