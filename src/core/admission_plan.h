// Admission planning (docs/admission.md, "Admission"): which waiting work
// items a tick admits, and what holds each one it does not.
//
// Candidates are considered by effective priority (highest first), then by
// the time they were queued (oldest first), then by key and route; each is
// admitted when every limit still allows it after the admissions before it:
// its route's max_running, its project's and group's limits (the admitting
// route's limit, counted over every route's items), and the global cap.
//
// Invariants: no limit is exceeded by the items holding capacity plus the
// admissions; an item whose route is paused or held by a provider cooldown,
// or whose retry is not due, is never admitted; every candidate not
// admitted gets a reason naming what holds it. Pure: the caller reads the
// queue and writes the plan.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/route.h"
#include "core/time.h"
#include "core/work_item.h"
#include "core/workflow.h"

namespace orrery {

// What admission needs of a route.
struct RouteLimits {
  std::string id;
  std::string name;
  bool paused = false;
  int max_running = 1;
  int max_per_project = 0;  // 0: unlimited
  int max_per_group = 0;
  DurationMs priority_aging_ms = 0;
  // A provider cooldown its workflow's agent steps are held by, e.g.
  // "claude cooldown until 2026-12-02T10:00:00Z" (empty: none).
  std::string held_by;
};

RouteLimits route_limits(const Route& route);

// An item as admission sees it: a candidate (queued, or failed waiting for
// its retry) or an item holding capacity (admitted or running).
struct QueueEntry {
  std::string id;
  std::string key;
  std::string route_id;
  std::string project;  // empty: none
  std::string group;
  ItemStatus status = ItemStatus::kQueued;
  std::int64_t priority = 0;
  TimeMs queued_at = 0;
  std::optional<TimeMs> next_attempt_at;  // a retry's time
};

struct AdmissionInput {
  std::vector<RouteLimits> routes;
  std::vector<QueueEntry> candidates;
  std::vector<QueueEntry> holding;
  int global_max_running = 0;  // 0: unlimited
  // At most this many admissions (the rest wait for the next tick).
  int max_admissions = 1000;
  TimeMs now = 0;
  // Say what holds each candidate not admitted (`item show`); the daemon's
  // plan only admits, and builds no reason.
  bool explain = true;
};

struct AdmissionPlan {
  std::vector<std::string> admit;  // item ids, in admission order
  // For each candidate not admitted: what holds it (only when explained).
  std::map<std::string, std::string> waiting_on;
  // A candidate no limit held waits for the next tick (max_admissions).
  bool more = false;
};

AdmissionPlan plan_admission(const AdmissionInput& input);

// The limits that are full before any admission, given the items holding
// capacity: what the daemon's read of the queue leaves out (store/
// admission.h AdmissionRead). `routes`: ids of the routes that admit
// nothing (paused, held by a cooldown, at max_running; every route when the
// global cap is reached). `projects`: projects at the limit of every route
// that may admit; `route_projects`: "ROUTE-ID/PROJECT" for a project at the
// limit of only some of them (a route's limits count every route's items).
// The same for groups. A candidate none of these names may be admitted
// first; one that they name is held whatever else is admitted.
struct FullLimits {
  std::vector<std::string> routes;
  std::vector<std::string> projects;
  std::vector<std::string> route_projects;
  std::vector<std::string> groups;
  std::vector<std::string> route_groups;
};

FullLimits full_limits(const std::vector<RouteLimits>& routes,
                       const std::vector<QueueEntry>& holding, int global_max_running);

// What holds the items of a route running `spec` back for a provider
// cooldown (`cooldowns`: account -> the end of its cooldown): "ACCOUNT
// cooldown until T" of the first agent step, in spec order, whose account
// (core/workflow.h step_account) is cooling down at `now`; empty if none.
// No attempt is spent on a cooldown: the item is not admitted.
std::string cooldown_hold(const WorkflowSpec& spec, const std::map<std::string, TimeMs>& cooldowns,
                          TimeMs now);

}  // namespace orrery
