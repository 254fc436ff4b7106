// The merge queue (docs/workers.md, "The merge queue"): entries that bring a
// reported worker's branch onto a target branch one at a time, each verified
// on top of the last; and the per-repository settings of a queue.
//
// Invariants: an entry's state changes only along kMergeTransitions
// (check_merge_transition); merged is final; a queue serves one (repository,
// target branch) and takes its entries by priority (higher first), then
// order of arrival; a verification is never skipped: a queue either names a
// command or says `none` explicitly, and every entry records which.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "core/time.h"

namespace orrery {

enum class MergeState { kWaiting, kReady, kMerged, kConflict, kRejected };
enum class MergeStrategy { kRebase, kMerge, kSquash };

const char* merge_state_name(MergeState state);
Result<MergeState> parse_merge_state(std::string_view text);
const char* merge_strategy_name(MergeStrategy strategy);
Result<MergeStrategy> parse_merge_strategy(std::string_view text);

bool legal_merge_transition(MergeState from, MergeState to);
// Ok when legal; otherwise a conflict naming both states.
Status check_merge_transition(const std::string& entry_id, MergeState from, MergeState to);

// The word a queue's settings use for "verify nothing, on purpose".
inline constexpr std::string_view kVerifyNone = "none";
inline constexpr std::size_t kMaxVerifyCommandBytes = 4096;

// The verification of one candidate: what ran, how it ended, the tail of
// its output (scrubbed) and the tree it verified.
struct VerifyRecord {
  std::string command;  // "none" when the queue verifies nothing
  std::optional<int> exit_code;
  std::optional<std::int64_t> duration_ms;
  std::string output_tail;
  std::string tree;  // the verified commit's tree id
};

struct MergeEntry {
  std::string id;
  std::string worker_id;
  std::string repo;
  std::string target;  // the target branch, e.g. main
  MergeState state = MergeState::kWaiting;
  int priority = 0;
  std::optional<MergeStrategy> strategy;  // the step's; none: the queue's
  std::string base_revision;              // the worker's base
  std::string parent_revision;            // the tip the candidate was put on
  std::string candidate_revision;         // the worker's final revision
  // What the target became (merged); while ready, the commit the driver
  // verified and is about to move the target to, once it is that far.
  std::string merge_commit;
  VerifyRecord verify;
  std::string reason;  // why conflict or rejected, or what changed
  std::string conflict_files_json = "[]";
  std::string driver;  // the queue driver holding a ready entry
  std::optional<TimeMs> lease_expires_at;
  TimeMs queued_at = 0;  // order of arrival; a retry arrives again
  TimeMs created_at = 0;
  TimeMs updated_at = 0;
  std::optional<TimeMs> finished_at;
};

// A queue's settings for one repository (`queue config`): the target branch
// its entries go to unless a step names one, the verification command, the
// strategy.
struct QueueConfig {
  std::string repo;
  std::string target;  // "" : the branch each worker's base came from
  std::string verify;  // "" : not set (an error at merge time); "none": on purpose
  MergeStrategy strategy = MergeStrategy::kRebase;
  TimeMs updated_at = 0;
};

// A verification command as given: 1 to kMaxVerifyCommandBytes of valid
// UTF-8 without control characters other than tab, or "none"; an empty or
// blank command is refused ("a verification never passes by skipping").
Status check_verify_command(std::string_view command, const std::string& where);

}  // namespace orrery
