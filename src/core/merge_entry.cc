#include "core/merge_entry.h"

#include <algorithm>
#include <iterator>

#include "core/enum_names.h"
#include "core/text.h"

namespace orrery {
namespace {

using M = MergeState;

constexpr NameTable<MergeState, 5> kStateNames{{
    {M::kWaiting, "waiting"},
    {M::kReady, "ready"},
    {M::kMerged, "merged"},
    {M::kConflict, "conflict"},
    {M::kRejected, "rejected"},
}};

constexpr NameTable<MergeStrategy, 3> kStrategyNames{{
    {MergeStrategy::kRebase, "rebase"},
    {MergeStrategy::kMerge, "merge"},
    {MergeStrategy::kSquash, "squash"},
}};

// docs/workers.md, "Entries": ready is the head being verified and merged;
// it stays ready while its driver records the commit it is about to move
// the target to (or, the target having moved, forgets it to verify again);
// it goes back to waiting when its driver stopped before it ended; conflict
// and rejected wait for a person (`queue retry` puts them at the end of the
// queue again, `queue drop` rejects a waiting entry); merged is final.
struct Transition {
  MergeState from;
  MergeState to;
};

constexpr Transition kTransitions[] = {
    {M::kWaiting, M::kReady},    {M::kWaiting, M::kRejected}, {M::kReady, M::kReady},
    {M::kReady, M::kMerged},     {M::kReady, M::kConflict},   {M::kReady, M::kRejected},
    {M::kReady, M::kWaiting},    {M::kConflict, M::kWaiting}, {M::kConflict, M::kRejected},
    {M::kRejected, M::kWaiting},
};

}  // namespace

const char* merge_state_name(MergeState state) { return enum_name(state, kStateNames); }

Result<MergeState> parse_merge_state(std::string_view text) {
  return parse_enum_name(text, kStateNames, "queue entry state");
}

const char* merge_strategy_name(MergeStrategy strategy) {
  return enum_name(strategy, kStrategyNames);
}

Result<MergeStrategy> parse_merge_strategy(std::string_view text) {
  return parse_enum_name(text, kStrategyNames, "merge strategy");
}

bool legal_merge_transition(MergeState from, MergeState to) {
  return std::any_of(std::begin(kTransitions), std::end(kTransitions),
                     [&](const Transition& t) { return t.from == from && t.to == to; });
}

Status check_merge_transition(const std::string& entry_id, MergeState from, MergeState to) {
  if (legal_merge_transition(from, to)) return Ok{};
  const std::string message = "queue entry " + entry_id + " is " + merge_state_name(from);
  if (from == M::kMerged) return conflict_error(message + ", which is final");
  return conflict_error(message + " and cannot become " + merge_state_name(to));
}

Status check_verify_command(std::string_view command, const std::string& where) {
  if (trim(command).empty()) {
    return usage_error(where +
                       ": the verification command is empty; give the command that must exit 0 "
                       "before a merge (e.g. 'make test'), or 'none' to merge unverified on "
                       "purpose");
  }
  if (command.size() > kMaxVerifyCommandBytes) {
    return usage_error(where + ": " + std::to_string(command.size()) + " bytes; at most " +
                       std::to_string(kMaxVerifyCommandBytes) + " are allowed");
  }
  if (auto valid = check_utf8(command, where); !valid) return valid;
  for (unsigned char c : command) {
    if ((c < 0x20 && c != '\t') || c == 0x7f) {
      return usage_error(where + " '" + visible(command) +
                         "': a verification command is one line without control characters");
    }
  }
  return Ok{};
}

}  // namespace orrery
