#include "core/trigger_overlap.h"

namespace orrery {
namespace {

Result<TriggerAction> queue_behind(const ManualTrigger& trigger) {
  const std::string& running = trigger.running.front();
  if (trigger.queued) {
    return conflict_error("loop " + trigger.loop_name + " already holds a queued run (" +
                          *trigger.queued + ") behind its run in progress (" + running +
                          "); --force runs anyway");
  }
  if (trigger.wait && !trigger.daemon_live) {
    return conflict_error("loop " + trigger.loop_name + " has a run in progress (" + running +
                          ") and no daemon is running to start a queued run after it; start "
                          "one (orrery daemon), or use --force to run now");
  }
  return TriggerAction::kQueue;
}

}  // namespace

Result<TriggerAction> decide_trigger(const ManualTrigger& trigger) {
  if (trigger.force || trigger.running.empty()) return TriggerAction::kRunNow;
  switch (trigger.overlap) {
    case OverlapPolicy::kSkip:
      return conflict_error("loop " + trigger.loop_name + " has a run in progress (" +
                            trigger.running.front() + "); --force runs anyway");
    case OverlapPolicy::kQueue:
      return queue_behind(trigger);
    case OverlapPolicy::kReplace:
      return TriggerAction::kReplace;
    case OverlapPolicy::kAllow:
      break;
  }
  return TriggerAction::kRunNow;
}

}  // namespace orrery
