#include "core/attempt_feedback.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/exact_json.h"
#include "core/json_text_list.h"
#include "core/path_glob.h"
#include "core/text.h"

namespace orrery {
namespace {

using Json = nlohmann::json;

constexpr std::size_t kMaxFeedbackTextBytes = 2 * 1024;
constexpr std::size_t kMaxFeedbackFiles = 50;
constexpr std::size_t kMaxFeedbackFileListBytes = 8 * 1024;

// At most `limit` bytes of the start of the text, made valid UTF-8, cut at
// a character and marked with "…" when something was cut.
std::string head_of(std::string_view text, std::size_t limit) {
  const std::size_t taken = text.size() <= limit ? text.size() : character_start_at(text, limit);
  std::string head = storable_text(text.substr(0, taken));
  bool cut = taken < text.size();
  if (head.size() > limit) {
    head.resize(character_start_at(head, limit));
    cut = true;
  }
  return cut ? head + "…" : head;
}

// At most `limit` bytes of the end of the text, made valid UTF-8 and marked
// with "…" when something was cut.
std::string tail_of(std::string_view text, std::size_t limit) {
  std::size_t start = text.size() <= limit ? 0 : text.size() - limit;
  while (start > 0 && start < text.size() &&
         (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80)
    ++start;
  std::string tail = storable_text(text.substr(start));
  bool cut = start > 0;
  if (tail.size() > limit) {
    std::size_t from = tail.size() - limit;
    while (from < tail.size() && (static_cast<unsigned char>(tail[from]) & 0xC0) == 0x80) ++from;
    tail.erase(0, from);
    cut = true;
  }
  return cut ? "…" + tail : tail;
}

// The first files, each cut, while the list stays within its bytes; the
// rest counted.
Json file_list(const std::vector<std::string>& files) {
  Json list = Json::array();
  std::size_t bytes = 0;
  std::size_t kept = 0;
  for (; kept < files.size() && kept < kMaxFeedbackFiles; ++kept) {
    std::string file = head_of(files[kept], kMaxFeedbackTextBytes);
    if (bytes + file.size() > kMaxFeedbackFileListBytes) break;
    bytes += file.size();
    list.push_back(std::move(file));
  }
  if (kept < files.size()) list.push_back("… and " + std::to_string(files.size() - kept) + " more");
  return list;
}

Json text_or_null(const std::string& text) {
  return text.empty() ? Json(nullptr) : Json(head_of(text, kMaxFeedbackTextBytes));
}

bool entry_pending(const AttemptChange& change) {
  return change.entry &&
         (change.entry->state == MergeState::kWaiting || change.entry->state == MergeState::kReady);
}

bool entry_failed(const AttemptChange& change) {
  return change.entry && (change.entry->state == MergeState::kConflict ||
                          change.entry->state == MergeState::kRejected);
}

// What kept this change from reaching its end ("" : nothing).
std::string problem_of(const AttemptChange& change) {
  const Worker& worker = change.worker;
  const std::string step = " (step " + worker.step_id + ")";
  if (entry_failed(change)) {
    const MergeEntry& entry = *change.entry;
    return "merge entry " + entry.id + step + " " + merge_state_name(entry.state) + ": " +
           entry.reason;
  }
  const std::string who = "worker " + worker.id + step;
  switch (worker.state) {
    case WorkerState::kHold:
      return who + " is on hold: " + worker.hold_reason;
    case WorkerState::kFailed:
      return who + " failed" + (worker.failure_reason.empty() ? "" : ": " + worker.failure_reason);
    case WorkerState::kCancelled:
      return who + " was cancelled";
    default:
      return "";
  }
}

const char* kind_of(const AttemptChange& change) {
  if (entry_failed(change)) return merge_state_name(change.entry->state);
  return change.worker.state == WorkerState::kHold ? "held" : "failed";
}

Json merge_json(const MergeEntry& entry, std::size_t output_limit) {
  std::vector<std::string> conflict_files;
  if (auto files = text_list_from_json(entry.conflict_files_json))
    conflict_files = std::move(*files);
  Json verify = nullptr;
  if (!entry.verify.command.empty()) {
    verify = Json{{"command", entry.verify.command},
                  {"exit_code", entry.verify.exit_code ? Json(*entry.verify.exit_code) : Json()},
                  {"output_tail", tail_of(entry.verify.output_tail, output_limit)}};
  }
  return Json{{"entry_id", entry.id},
              {"state", merge_state_name(entry.state)},
              {"target", entry.target},
              {"reason", text_or_null(entry.reason)},
              {"conflict_files", file_list(conflict_files)},
              {"verify", verify}};
}

Json change_json(const AttemptChange& change, std::size_t output_limit) {
  const Worker& worker = change.worker;
  return Json{{"step", worker.step_id},
              {"worker_id", worker.id},
              {"branch", worker.branch},
              {"state", worker_state_name(worker.state)},
              {"hold_reason", text_or_null(worker.hold_reason)},
              {"changed_files", file_list(worker.changed_files)},
              {"files_outside_allowed",
               file_list(files_outside(worker.allowed_files, worker.changed_files))},
              {"merge", change.entry ? merge_json(*change.entry, output_limit) : Json(nullptr)}};
}

// The record within kMaxFeedbackBytes: the first changes that fit, the
// rest counted; when not even the first fits, its output is shortened, and
// at last no change is kept — escaping can make any text longer.
std::string feedback_record(const AttemptRecord& record, const std::string& kind,
                            const std::string& reason) {
  Json json{{"attempt", record.attempt},
            {"workflow_run_id", record.workflow_run_id},
            {"outcome", kind},
            {"reason", head_of(reason, kMaxFeedbackTextBytes)},
            {"run_status", workflow_run_status_name(record.run_status)},
            {"run_error", text_or_null(record.run_error)},
            {"changes", Json::array()},
            {"changes_omitted", record.changes.size()}};
  // Each kept change adds its text and a comma; the count's digits only shrink.
  std::size_t size = write_json(json).size();
  Json kept = Json::array();
  for (const AttemptChange& change : record.changes) {
    Json item = change_json(change, kMaxFeedbackOutputBytes);
    std::size_t added = write_json(item).size() + 1;
    for (std::size_t limit = kMaxFeedbackOutputBytes / 2;
         kept.empty() && size + added > kMaxFeedbackBytes && limit >= 256; limit /= 2) {
      item = change_json(change, limit);
      added = write_json(item).size() + 1;
    }
    if (size + added > kMaxFeedbackBytes) break;
    size += added;
    kept.push_back(std::move(item));
  }
  json["changes_omitted"] = record.changes.size() - kept.size();
  json["changes"] = std::move(kept);
  return write_json(json);
}

}  // namespace

AttemptOutcome attempt_outcome(const AttemptRecord& record) {
  AttemptOutcome outcome;
  const std::string run = "workflow run " + record.workflow_run_id;
  if (std::any_of(record.changes.begin(), record.changes.end(), entry_pending)) {
    outcome.verdict = AttemptVerdict::kUndecided;
    outcome.reason = run + " waits for the merge queue";
    return outcome;
  }
  if (record.run_status == WorkflowRunStatus::kCancelled) {
    outcome.verdict = AttemptVerdict::kCancelled;
    outcome.reason = run + " was cancelled";
    return outcome;
  }
  std::vector<std::string> problems;
  std::string kind = record.run_status == WorkflowRunStatus::kSucceeded ? "" : "failed";
  for (const AttemptChange& change : record.changes) {
    std::string problem = problem_of(change);
    if (problem.empty()) continue;
    if (kind.empty()) kind = kind_of(change);
    problems.push_back(std::move(problem));
  }
  if (kind.empty()) {
    outcome.verdict = AttemptVerdict::kSucceeded;
    outcome.reason = run + " succeeded";
    for (const AttemptChange& change : record.changes) {
      if (change.entry && change.entry->state == MergeState::kMerged)
        outcome.reason +=
            "; merge entry " + change.entry->id + " merged onto " + change.entry->target;
    }
    return outcome;
  }
  outcome.verdict = AttemptVerdict::kFailed;
  outcome.reason =
      record.run_status == WorkflowRunStatus::kSucceeded
          ? run + " succeeded but its change did not merge"
          : run + " failed" + (record.run_error.empty() ? "" : ": " + record.run_error);
  for (const std::string& problem : problems) outcome.reason += "; " + problem;
  outcome.feedback_json = feedback_record(record, kind, outcome.reason);
  return outcome;
}

}  // namespace orrery
