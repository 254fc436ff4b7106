#include "engine/admission_input.h"

namespace orrery {

Result<RouteHolds> route_holds(RouteCatalog& routes, WorkflowCatalog& workflows,
                               Cooldowns& cooldowns, GoalBook& goals, TimeMs now) {
  RouteHolds holds;
  auto stopped = goals.workflow_goal_holds(now);
  if (!stopped) return stopped.error();
  auto active = cooldowns.active_cooldowns(now);
  if (!active) return active.error();
  if (stopped->empty() && active->empty()) return holds;
  std::map<std::string, TimeMs> cooling;
  for (const Cooldown& cooldown : *active) cooling[cooldown.account] = cooldown.until_at;
  auto listed = routes.list_routes();
  if (!listed) return listed.error();
  for (const Route& route : *listed) {
    if (auto goal = stopped->find(route.workflow_name); goal != stopped->end()) {
      holds[route.id] = goal->second;
      continue;
    }
    if (cooling.empty()) continue;
    auto workflow = workflows.get_workflow(route.workflow_id);
    if (!workflow) return workflow.error();
    if (!*workflow) continue;
    std::string hold = cooldown_hold((*workflow)->spec, cooling, now);
    if (!hold.empty()) holds[route.id] = std::move(hold);
  }
  return holds;
}

std::vector<std::string> held_route_ids(const RouteHolds& holds) {
  std::vector<std::string> ids;
  for (const auto& [id, hold] : holds) ids.push_back(id);
  return ids;
}

AdmissionInput admission_input(AdmissionQueue queue, const RouteHolds& holds,
                               int global_max_running, TimeMs now) {
  AdmissionInput input;
  input.now = now;
  input.global_max_running = global_max_running;
  for (const Route& route : queue.routes) {
    RouteLimits limits = route_limits(route);
    if (auto held = holds.find(route.id); held != holds.end()) limits.held_by = held->second;
    input.routes.push_back(std::move(limits));
  }
  input.candidates = std::move(queue.candidates);
  input.holding = std::move(queue.holding);
  return input;
}

}  // namespace orrery
