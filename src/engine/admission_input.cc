#include "engine/admission_input.h"

#include <map>

namespace orrery {

Result<AdmissionInput> admission_input(WorkflowCatalog& workflows, Cooldowns& cooldowns,
                                       AdmissionQueue queue, int global_max_running, TimeMs now) {
  auto active = cooldowns.active_cooldowns(now);
  if (!active) return active.error();
  std::map<std::string, TimeMs> cooling;
  for (const Cooldown& cooldown : *active) cooling[cooldown.account] = cooldown.until_at;
  AdmissionInput input;
  input.now = now;
  input.global_max_running = global_max_running;
  for (const Route& route : queue.routes) {
    RouteLimits limits = route_limits(route);
    if (!cooling.empty()) {
      auto workflow = workflows.get_workflow(route.workflow_id);
      if (!workflow) return workflow.error();
      if (*workflow) limits.held_by = cooldown_hold((*workflow)->spec, cooling, now);
    }
    input.routes.push_back(std::move(limits));
  }
  input.candidates = std::move(queue.candidates);
  input.holding = std::move(queue.holding);
  return input;
}

}  // namespace orrery
