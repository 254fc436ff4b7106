#include "core/work_item.h"

#include <algorithm>

#include "core/enum_names.h"
#include "core/text.h"

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

Status check_optional_name(const std::string& name, const char* field) {
  return name.empty() ? Status(Ok{}) : check_name(name, field);
}

}  // namespace

const char* item_status_name(ItemStatus status) { return enum_name(status, kStatuses); }
Result<ItemStatus> parse_item_status(std::string_view text) {
  return parse_enum_name(text, kStatuses, "item status");
}
void EnqueueCounts::count(EnqueueOutcome outcome) {
  switch (outcome) {
    case EnqueueOutcome::kCreated:
      ++created;
      break;
    case EnqueueOutcome::kRefreshed:
      ++refreshed;
      break;
    case EnqueueOutcome::kDuplicate:
      ++duplicate;
      break;
  }
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

Status check_text(std::string_view text, const char* field, std::size_t max_bytes) {
  if (auto valid = check_utf8(text, field); !valid) return valid;
  if (text.size() <= max_bytes) return Ok{};
  return usage_error(std::string(field) + " is " + std::to_string(text.size()) +
                     " bytes long; at most " + std::to_string(max_bytes) + " are allowed");
}

// Prose a person writes (a reason, an intent): one text rule (core/text.h).
Status check_prose(std::string_view text, const char* field, std::size_t max_bytes) {
  if (auto valid = check_user_text(text, field, TextLines::kMany); !valid) return valid;
  return check_text(text, field, max_bytes);
}

Status check_item_reason(std::string_view reason) {
  return check_prose(reason, "--reason", kMaxItemReasonBytes);
}

Status check_item_fields(const WorkItem& item, FieldNames names) {
  const bool json = names == FieldNames::kJson;
  // The option's name, or the JSON field's: "--subject-path" or "subject path".
  const auto field = [json](const char* option, const char* in_json) {
    return json ? in_json : option;
  };
  if (auto key = check_name(item.key, field("--key", "key"), kMaxItemKeyCharacters); !key) {
    return key;
  }
  if (auto project = check_optional_name(item.project, field("--project", "project")); !project) {
    return project;
  }
  if (auto group = check_optional_name(item.group, field("--group", "group")); !group) {
    return group;
  }
  if (item.priority < -kMaxItemPriority || item.priority > kMaxItemPriority) {
    return usage_error(std::string(field("--priority", "priority")) + " " +
                       std::to_string(item.priority) + " is out of range; give " +
                       std::to_string(-kMaxItemPriority) + " to " +
                       std::to_string(kMaxItemPriority));
  }
  const Invocation& call = item.invocation;
  const struct {
    const std::string& text;
    const char* field;
    std::size_t max_bytes;
  } texts[] = {
      {item.input_json, field("--input", "input"), kMaxItemJsonBytes},
      {call.scope_json, field("--scope", "scope"), kMaxItemJsonBytes},
      {call.output_policy_json, field("--output-policy", "output_policy"), kMaxItemJsonBytes},
      {call.intent, field("--intent", "intent"), kMaxInvocationTextBytes},
      {call.source.kind, "source kind", kMaxInvocationTextBytes},
      {call.source.id, "source id", kMaxInvocationTextBytes},
      {call.source.dedupe_key, field("--dedupe", "dedupe"), kMaxInvocationTextBytes},
      {call.subject.kind, "subject kind", kMaxInvocationTextBytes},
      {call.subject.id, "subject id", kMaxInvocationTextBytes},
      {call.subject.path, field("--subject-path", "subject path"), kMaxInvocationTextBytes},
      {call.subject.url, field("--subject-url", "subject url"), kMaxInvocationTextBytes},
  };
  for (const auto& text : texts) {
    if (auto checked = check_text(text.text, text.field, text.max_bytes); !checked) return checked;
  }
  if (auto intent = check_prose(call.intent, field("--intent", "intent"), kMaxInvocationTextBytes);
      !intent)
    return intent;
  if (!call.source.dedupe_key.empty() && call.source.kind.empty()) {
    return usage_error(std::string(field("--dedupe", "dedupe")) + " '" +
                       visible(call.source.dedupe_key) + "' needs " +
                       field("--source KIND", "a source kind") +
                       ": a dedupe key is unique per source kind");
  }
  return Ok{};
}

}  // namespace orrery
