// The column tables of the admission queue's tables (docs/admission.md,
// "Storage") and the functions that read a row of each
// (store/sql/column_table.h). An item is read joined with its route (for
// its name and max attempts) and its invocation.
#pragma once

#include <string>

#include "core/route.h"
#include "core/work_item.h"
#include "store/sql/connection.h"
#include "store/sql/rows.h"  // read_all

namespace orrery::sql {

std::string route_select_list();  // of `routes`
Result<Route> read_route(const Statement& row);

// Of `work_items i JOIN routes r JOIN invocations v`: item_from_clause().
std::string item_select_list();
std::string item_from_clause();
int item_column_count();  // the columns of item_select_list()
Result<WorkItem> read_item(const Statement& row);

// The status lists of SQL guards: "'queued', 'deferred'" and the like.
inline constexpr const char* kWaitingItemStatuses = "'queued', 'deferred'";
inline constexpr const char* kHoldingItemStatuses = "'admitted', 'running'";
inline constexpr const char* kRestingItemStatuses =
    "'succeeded', 'failed', 'dead_letter', 'cancelled'";
inline constexpr const char* kFinishedItemStatuses = "'succeeded', 'dead_letter', 'cancelled'";

}  // namespace orrery::sql
