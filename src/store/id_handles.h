// IdHandles: the ids a listing shows, cut to the shortest length that still
// names one row of the table (docs/cli.md, "Ids"), as git shows commits.
//
// Invariants: a handle is at least kMinHandleLength characters and at most
// the whole id; it is unique among all the table's rows, not only the rows
// shown (a filtered listing's handle resolves back through the commands that
// take the id); every id of a listing is cut to the same length so that the
// column lines up. Ids made in one millisecond share their first 12
// characters, so they get longer handles, never shared ones.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/result.h"

namespace orrery {

// The tables whose rows are named by the store's hex ids.
enum class IdTable {
  kLoops,
  kRuns,
  kWorkflows,
  kWorkflowRuns,
  kRoutes,
  kItems,
  kGoals,
  kWorkers,
  kMergeEntries,
};
inline constexpr IdTable kAllIdTables[] = {
    IdTable::kLoops, IdTable::kRuns,  IdTable::kWorkflows, IdTable::kWorkflowRuns, IdTable::kRoutes,
    IdTable::kItems, IdTable::kGoals, IdTable::kWorkers,   IdTable::kMergeEntries};

inline constexpr std::size_t kMinHandleLength = 8;

class IdHandles {
 public:
  virtual ~IdHandles() = default;

  // The length at which each of `ids` starts no other id of `table`: the
  // longest any of them needs, at least kMinHandleLength. An id that is not
  // in the table needs the length that tells it from its neighbours.
  virtual Result<std::size_t> handle_length(IdTable table, const std::vector<std::string>& ids) = 0;
};

}  // namespace orrery
