// WorkKind: the kinds of claimed work (docs/architecture.md, "Claimed
// work"). Every kind is claimed, supervised, heartbeated and finished
// through the one claim ledger (store/claim_ledger.h); what differs between
// kinds is said here, once (the store maps each kind to its rows).
//
// Invariant: a new kind of work is a new enumerator and its traits in
// work_kind_traits, not a new set of store methods.
#pragma once

namespace orrery {

enum class WorkKind {
  kLoopRun,      // a loop's run: one row of `runs`
  kStepAttempt,  // one attempt of a workflow step: one row of `workflow_attempts`
};

struct WorkKindTraits {
  const char* noun;  // "run", "step attempt"
  // An outcome that could not be written is kept in the work's directory for
  // recovery to record (docs/execution.md, "Recovery"); otherwise the work's
  // owner starts it again.
  bool keeps_outcome;
  // What happens to work whose outcome could not be written nor kept.
  const char* lost_outcome_remedy;
  // The internal command an exec'd supervisor of this kind runs
  // (`orrery supervise ID --token-fd N`).
  const char* supervisor_command;
};

const WorkKindTraits& work_kind_traits(WorkKind kind);

}  // namespace orrery
