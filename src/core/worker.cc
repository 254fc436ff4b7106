#include "core/worker.h"

#include <algorithm>
#include <iterator>

#include "core/enum_names.h"

namespace orrery {
namespace {

using S = WorkerState;

constexpr NameTable<WorkerState, 11> kStateNames{{
    {S::kPlanned, "planned"},
    {S::kLeased, "leased"},
    {S::kStarting, "starting"},
    {S::kRunning, "running"},
    {S::kReported, "reported"},
    {S::kVerifying, "verifying"},
    {S::kMergeReady, "merge_ready"},
    {S::kMerged, "merged"},
    {S::kHold, "hold"},
    {S::kFailed, "failed"},
    {S::kCancelled, "cancelled"},
}};

// The states each state may become (docs/workers.md, "States"). A final
// state has none.
struct Transition {
  WorkerState from;
  WorkerState to;
};

constexpr Transition kTransitions[] = {
    {S::kPlanned, S::kLeased},       {S::kPlanned, S::kFailed},     {S::kPlanned, S::kCancelled},
    {S::kLeased, S::kStarting},      {S::kLeased, S::kHold},        {S::kLeased, S::kFailed},
    {S::kLeased, S::kCancelled},     {S::kStarting, S::kRunning},   {S::kStarting, S::kHold},
    {S::kStarting, S::kFailed},      {S::kStarting, S::kCancelled}, {S::kRunning, S::kReported},
    {S::kRunning, S::kHold},         {S::kRunning, S::kFailed},     {S::kRunning, S::kCancelled},
    {S::kReported, S::kVerifying},   {S::kReported, S::kHold},      {S::kReported, S::kCancelled},
    {S::kVerifying, S::kMergeReady}, {S::kVerifying, S::kReported}, {S::kVerifying, S::kHold},
    {S::kVerifying, S::kCancelled},  {S::kMergeReady, S::kMerged},  {S::kMergeReady, S::kVerifying},
    {S::kMergeReady, S::kReported},  {S::kMergeReady, S::kHold},    {S::kMergeReady, S::kCancelled},
    {S::kHold, S::kLeased},          {S::kHold, S::kReported},      {S::kHold, S::kFailed},
    {S::kHold, S::kCancelled},
};

}  // namespace

const char* worker_state_name(WorkerState state) { return enum_name(state, kStateNames); }

Result<WorkerState> parse_worker_state(std::string_view text) {
  return parse_enum_name(text, kStateNames, "worker state");
}

bool is_final(WorkerState state) {
  return state == S::kMerged || state == S::kFailed || state == S::kCancelled;
}

bool is_leased(WorkerState state) {
  return state == S::kLeased || state == S::kStarting || state == S::kRunning ||
         state == S::kVerifying || state == S::kMergeReady;
}

bool legal_worker_transition(WorkerState from, WorkerState to) {
  return std::any_of(std::begin(kTransitions), std::end(kTransitions),
                     [&](const Transition& t) { return t.from == from && t.to == to; });
}

Status check_worker_transition(const std::string& worker_id, WorkerState from, WorkerState to) {
  if (legal_worker_transition(from, to)) return Ok{};
  std::string message = "worker " + worker_id + " is " + worker_state_name(from);
  if (is_final(from)) {
    return conflict_error(message + ", which is final; it cannot become " + worker_state_name(to));
  }
  std::string accepted;
  for (const Transition& t : kTransitions) {
    if (t.from != from) continue;
    accepted += (accepted.empty() ? "" : ", ") + std::string(worker_state_name(t.to));
  }
  return conflict_error(message + " and cannot become " + worker_state_name(to) + "; from " +
                        worker_state_name(from) + " it may become " + accepted);
}

std::string discard_refusal(const Worker& worker) {
  const std::string is = "worker " + worker.id + " is " + worker_state_name(worker.state);
  switch (worker.state) {
    case S::kLeased:
    case S::kStarting:
    case S::kRunning:
      return is + ": its step is running; cancel its workflow run first (orrery workflow cancel " +
             worker.workflow_run_id + "), then discard it once it is on hold";
    case S::kVerifying:
    case S::kMergeReady:
      return is +
             ": the merge queue is verifying its change; wait for the verdict (orrery queue "
             "ls) — a change that is rejected or conflicts leaves it on hold, to discard then";
    case S::kMerged:
      return is + ": its change is on the target, and its worktree and branch went with the " +
             "merge; there is nothing to discard (orrery worker show " + worker.id + ")";
    default:
      return "";
  }
}

const std::string& recorded_tip(const Worker& worker) {
  return worker.final_revision.empty() ? worker.base_revision : worker.final_revision;
}

}  // namespace orrery
