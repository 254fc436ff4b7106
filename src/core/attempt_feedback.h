// Attempt outcomes and feedback (docs/fleet.md, "Outcomes and feedback"):
// what became of one attempt of a work item — its workflow run and every
// change that run made in a worktree — and, when the attempt failed, the
// record handed to the next attempt ($ORRERY_FEEDBACK, and in words by
// core/feedback_prompt.h).
//
// Invariants:
// - an attempt succeeds only when its run succeeded and none of its changes
//   is on hold, failed or cancelled or has a conflict or rejected merge
//   entry;
// - while a change's merge entry is waiting or ready the attempt is
//   undecided: its item keeps running;
// - a failed attempt's reason is the queue's or the hold's own words; its
//   record is a JSON object of at most kMaxFeedbackBytes, valid UTF-8, every
//   text cut to its limit rather than the record refused.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/merge_entry.h"
#include "core/worker.h"
#include "core/workflow.h"

namespace orrery {

// One change of an attempt: a worker of its run and its merge entry.
struct AttemptChange {
  Worker worker;
  std::optional<MergeEntry> entry;  // none: it never entered the queue
};

// One finished attempt as its item's settlement reads it.
struct AttemptRecord {
  std::string workflow_run_id;
  int attempt = 1;
  WorkflowRunStatus run_status = WorkflowRunStatus::kFailed;
  std::string run_error;
  std::vector<AttemptChange> changes;
};

enum class AttemptVerdict { kUndecided, kSucceeded, kFailed, kCancelled };

struct AttemptOutcome {
  AttemptVerdict verdict = AttemptVerdict::kFailed;
  std::string reason;         // what happened, for the item's reasons
  std::string feedback_json;  // a failed attempt's record; "" otherwise
};

inline constexpr std::size_t kMaxFeedbackBytes = 64 * 1024;
// The end of a verification's output kept in the record and in the prompt.
inline constexpr std::size_t kMaxFeedbackOutputBytes = 16 * 1024;

AttemptOutcome attempt_outcome(const AttemptRecord& record);

}  // namespace orrery
