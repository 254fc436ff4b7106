#include "core/admission_plan.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <unordered_map>

namespace orrery {
namespace {

constexpr std::size_t kKeysNamed = 5;

// The items holding (or just given) one kind of capacity, in order.
struct Holders {
  std::vector<std::string> keys;
  int count() const { return static_cast<int>(keys.size()); }
};

std::string named_keys(const Holders& holders) {
  std::string text;
  for (std::size_t i = 0; i < holders.keys.size() && i < kKeysNamed; ++i) {
    text += (i == 0 ? "" : ", ") + holders.keys[i];
  }
  if (holders.keys.size() > kKeysNamed) {
    text += ", and " + std::to_string(holders.keys.size() - kKeysNamed) + " more";
  }
  return text;
}

std::string holders_text(const Holders& holders) {
  return (holders.count() == 1 ? "item " : "items ") + named_keys(holders);
}

enum class Limit { kNone, kRoute, kProject, kGroup, kGlobal };

class Capacity {
 public:
  explicit Capacity(int global_max) : global_max_(global_max) {}

  void hold(const QueueEntry& entry) {
    by_route_[entry.route_id].keys.push_back(entry.key);
    if (!entry.project.empty()) by_project_[entry.project].keys.push_back(entry.key);
    if (!entry.group.empty()) by_group_[entry.group].keys.push_back(entry.key);
    global_.keys.push_back(entry.key);
  }

  // The first full limit that holds the entry back.
  Limit full_limit(const QueueEntry& entry, const RouteLimits& route) {
    if (by_route_[entry.route_id].count() >= route.max_running) return Limit::kRoute;
    if (!entry.project.empty() && route.max_per_project > 0 &&
        by_project_[entry.project].count() >= route.max_per_project) {
      return Limit::kProject;
    }
    if (!entry.group.empty() && route.max_per_group > 0 &&
        by_group_[entry.group].count() >= route.max_per_group) {
      return Limit::kGroup;
    }
    if (global_max_ > 0 && global_.count() >= global_max_) return Limit::kGlobal;
    return Limit::kNone;
  }

  // "route max_running 2 reached (items A, B)" and the like.
  std::string describe(Limit limit, const QueueEntry& entry, const RouteLimits& route) {
    switch (limit) {
      case Limit::kRoute:
        return "route max_running " + std::to_string(route.max_running) + " reached (" +
               holders_text(by_route_[entry.route_id]) + ")";
      case Limit::kProject:
        return "project " + entry.project + " at max_per_project " +
               std::to_string(route.max_per_project) + " (" +
               holders_text(by_project_[entry.project]) + ")";
      case Limit::kGroup:
        return "group " + entry.group + " at max_per_group " + std::to_string(route.max_per_group) +
               " (" + holders_text(by_group_[entry.group]) + ")";
      case Limit::kGlobal:
        return "global max_running " + std::to_string(global_max_) + " reached (" +
               holders_text(global_) + ")";
      case Limit::kNone:
        break;
    }
    return "";
  }

 private:
  int global_max_;
  std::unordered_map<std::string, Holders> by_route_;
  std::unordered_map<std::string, Holders> by_project_;
  std::unordered_map<std::string, Holders> by_group_;
  Holders global_;
};

struct Ranked {
  const QueueEntry* entry;
  const RouteLimits* route;
  std::int64_t priority;
};

bool ranks_before(const Ranked& a, const Ranked& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.entry->queued_at != b.entry->queued_at) return a.entry->queued_at < b.entry->queued_at;
  if (a.entry->key != b.entry->key) return a.entry->key < b.entry->key;
  return a.entry->route_id < b.entry->route_id;
}

// What holds an entry whatever the limits: its route's state or its retry.
std::string standing_hold(const QueueEntry& entry, const RouteLimits* route, TimeMs now) {
  if (route == nullptr) return "its route is gone";
  if (route->paused || entry.status == ItemStatus::kDeferred) return "route paused";
  if (entry.next_attempt_at && *entry.next_attempt_at > now) {
    return "retry at " + format_time(*entry.next_attempt_at);
  }
  if (!route->held_by.empty()) return route->held_by;
  return "";
}

}  // namespace

RouteLimits route_limits(const Route& route) {
  RouteLimits limits;
  limits.id = route.id;
  limits.name = route.name;
  limits.paused = route.status == RouteStatus::kPaused;
  limits.max_running = route.max_running;
  limits.max_per_project = route.max_per_project;
  limits.max_per_group = route.max_per_group;
  limits.priority_aging_ms = route.priority_aging_ms;
  return limits;
}

AdmissionPlan plan_admission(const AdmissionInput& input) {
  std::unordered_map<std::string, const RouteLimits*> routes;
  for (const RouteLimits& route : input.routes) routes[route.id] = &route;
  Capacity capacity(input.global_max_running);
  for (const QueueEntry& entry : input.holding) capacity.hold(entry);

  AdmissionPlan plan;
  std::vector<Ranked> ranked;
  for (const QueueEntry& entry : input.candidates) {
    const auto found = routes.find(entry.route_id);
    const RouteLimits* route = found == routes.end() ? nullptr : found->second;
    if (std::string hold = standing_hold(entry, route, input.now); !hold.empty()) {
      if (input.explain) plan.waiting_on[entry.id] = std::move(hold);
      continue;
    }
    ranked.push_back(
        {&entry, route,
         effective_priority(entry.priority, entry.queued_at, input.now, route->priority_aging_ms)});
  }
  std::sort(ranked.begin(), ranked.end(), ranks_before);
  for (const Ranked& candidate : ranked) {
    const Limit limit = capacity.full_limit(*candidate.entry, *candidate.route);
    if (limit == Limit::kNone && static_cast<int>(plan.admit.size()) >= input.max_admissions) {
      plan.more = true;
      if (!input.explain) break;  // the rest wait for the next tick, whatever holds them
      plan.waiting_on[candidate.entry->id] = "next tick";
      continue;
    }
    if (limit != Limit::kNone) {
      if (input.explain) {
        plan.waiting_on[candidate.entry->id] =
            capacity.describe(limit, *candidate.entry, *candidate.route);
      }
      continue;
    }
    capacity.hold(*candidate.entry);
    plan.admit.push_back(candidate.entry->id);
  }
  return plan;
}

namespace {

// The names whose count reaches `limit` (0: none does).
std::set<std::string> at_limit(const std::map<std::string, int>& counts, int limit) {
  std::set<std::string> full;
  if (limit <= 0) return full;
  for (const auto& [name, count] : counts) {
    if (count >= limit) full.insert(name);
  }
  return full;
}

// Splits each open route's full names into those full on every open route
// and the "ROUTE-ID/NAME" pairs of the rest.
void split_full(const std::vector<std::pair<std::string, std::set<std::string>>>& by_route,
                std::vector<std::string>& everywhere, std::vector<std::string>& pairs) {
  std::set<std::string> common = by_route.front().second;
  for (const auto& [route, full] : by_route) {
    std::set<std::string> kept;
    std::set_intersection(common.begin(), common.end(), full.begin(), full.end(),
                          std::inserter(kept, kept.begin()));
    common = std::move(kept);
  }
  everywhere.assign(common.begin(), common.end());
  for (const auto& [route, full] : by_route) {
    for (const std::string& name : full) {
      if (common.count(name) == 0) pairs.push_back(route + "/" + name);
    }
  }
}

}  // namespace

FullLimits full_limits(const std::vector<RouteLimits>& routes,
                       const std::vector<QueueEntry>& holding, int global_max_running) {
  std::unordered_map<std::string, int> by_route;
  std::map<std::string, int> by_project;
  std::map<std::string, int> by_group;
  for (const QueueEntry& entry : holding) {
    ++by_route[entry.route_id];
    if (!entry.project.empty()) ++by_project[entry.project];
    if (!entry.group.empty()) ++by_group[entry.group];
  }
  const bool capped = global_max_running > 0 && int(holding.size()) >= global_max_running;
  FullLimits full;
  std::vector<std::pair<std::string, std::set<std::string>>> projects;
  std::vector<std::pair<std::string, std::set<std::string>>> groups;
  for (const RouteLimits& route : routes) {
    if (capped || route.paused || !route.held_by.empty() ||
        by_route[route.id] >= route.max_running) {
      full.routes.push_back(route.id);
      continue;
    }
    projects.emplace_back(route.id, at_limit(by_project, route.max_per_project));
    groups.emplace_back(route.id, at_limit(by_group, route.max_per_group));
  }
  if (projects.empty()) return full;
  split_full(projects, full.projects, full.route_projects);
  split_full(groups, full.groups, full.route_groups);
  return full;
}

std::string cooldown_hold(const WorkflowSpec& spec, const std::map<std::string, TimeMs>& cooldowns,
                          TimeMs now) {
  for (const WorkflowStep& step : spec.steps) {
    const std::string account = step_account(step);
    if (account.empty()) continue;
    auto found = cooldowns.find(account);
    if (found != cooldowns.end() && found->second > now) {
      return account + " cooldown until " + format_time(found->second);
    }
  }
  return "";
}

}  // namespace orrery
