#include "store/workflow_engine.h"

namespace orrery {

const char* reserve_answer_name(ReserveAnswer answer) {
  switch (answer) {
    case ReserveAnswer::kReserved:
      return "reserved";
    case ReserveAnswer::kExisting:
      return "existing";
    case ReserveAnswer::kBusy:
      return "busy";
    case ReserveAnswer::kReclaimed:
      return "reclaimed";
    case ReserveAnswer::kExhausted:
      return "exhausted";
  }
  return "unknown";
}

Claim claim_of(const StepAttempt& attempt) {
  return {attempt.dispatch_id, attempt.claimed_by, attempt.claim_token, WorkKind::kStepAttempt};
}

}  // namespace orrery
