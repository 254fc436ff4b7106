#include "core/work_kind.h"

namespace orrery {

const WorkKindTraits& work_kind_traits(WorkKind kind) {
  static const WorkKindTraits kLoopRun{"run", true, "", "supervise"};
  static const WorkKindTraits kStepAttempt{
      "step attempt", false, "the step's driver gives it a new attempt", "supervise-step"};
  return kind == WorkKind::kLoopRun ? kLoopRun : kStepAttempt;
}

}  // namespace orrery
