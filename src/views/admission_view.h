// The route and item documents of the admission queue (docs/admission.md,
// docs/cli.md): one source for `route` and `item` commands, `status`, the
// daemon's ORRERY_ITEM file, the HTTP API and MCP.
//
// Invariants: documents have every field of docs/cli.md, "none" as null;
// JSON texts stored as given (input, scope, output policy, feedback) are
// embedded as values.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/route.h"
#include "core/work_item.h"

namespace orrery {

// {id, name, description, workflow {id, name, version}, status, limits…,
// counts {queued, deferred, admitted, running, succeeded, failed,
// dead_letter, cancelled}, created_at, updated_at}
nlohmann::json route_json(const Route& route, const std::map<ItemStatus, std::int64_t>& counts);

// The item document; `waiting_on` is what holds a waiting item (empty:
// null), `now` gives its effective priority.
nlohmann::json item_json(const WorkItem& item, const std::string& waiting_on, TimeMs now);

}  // namespace orrery
