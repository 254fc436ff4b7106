// RouteCatalog: the routes of the admission queue (docs/admission.md,
// "Routes") — named entry points for work items, each naming the workflow
// version its items run and the limits admission keeps.
//
// Invariants every backend keeps: a route's name is unique; a route names a
// stored workflow version; a pause defers its queued items and a resume
// queues its deferred ones in the same transaction, and an enqueue that
// meets a pause either commits first or sees it; bad input changes nothing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/route.h"
#include "core/time.h"
#include "core/work_item.h"

namespace orrery {

// How many items of a route are in each status.
struct ItemCounts {
  std::map<ItemStatus, std::int64_t> by_status;
  std::int64_t of(ItemStatus status) const {
    auto found = by_status.find(status);
    return found == by_status.end() ? 0 : found->second;
  }
};

class RouteCatalog {
 public:
  virtual ~RouteCatalog() = default;

  // A new route (its id the store's); a name taken is a conflict.
  virtual Result<Route> create_route(const Route& route, TimeMs now) = 0;
  // An id, a name, or an id prefix of at least 6 characters.
  virtual Result<Route> resolve_route(const std::string& text) = 0;
  virtual Result<std::optional<Route>> get_route(const std::string& id) = 0;
  // By name.
  virtual Result<std::vector<Route>> list_routes() = 0;
  // Each route's item counts, by route id.
  virtual Result<std::map<std::string, ItemCounts>> count_items_by_route() = 0;
  // Replaces the route's settings and status (by id); a pause defers its
  // queued items and a resume queues its deferred ones, in one transaction.
  // A name taken by another route is a conflict.
  virtual Result<Route> update_route(const Route& route, TimeMs now) = 0;
  // Deletes the route, its items and the invocations no other item uses.
  // While an item is admitted or running it is refused (a conflict naming
  // it) unless `force`; then the ids of those items' workflow runs are
  // returned for the caller to cancel.
  virtual Result<std::vector<std::string>> delete_route(const std::string& id, bool force) = 0;
  // Whether a route runs a version of the workflow: the route's name.
  virtual Result<std::optional<std::string>> route_of_workflow(const std::string& workflow_id) = 0;
};

}  // namespace orrery
