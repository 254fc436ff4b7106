// The rows of workers, worker_events and merge_entries (docs/storage.md,
// "Workers and the merge queue"): column lists, binding and reading.
// Stored rows are not trusted: a state or list that does not parse is an
// internal error naming the row, never a crash.
#pragma once

#include <string>
#include <vector>

#include "core/merge_entry.h"
#include "core/result.h"
#include "core/worker.h"
#include "store/sql/connection.h"
#include "store/sql/goal_rows.h"

namespace orrery::sql {

// Workers matching `where` (a clause after FROM workers, with its ORDER BY).
Result<std::vector<Worker>> query_workers(Connection& db, const std::string& where,
                                          const Bind& bind);
// INSERT of a new worker ON CONFLICT DO NOTHING (the caller checks the count).
Status insert_worker(Connection& db, const Worker& worker);

Status insert_worker_event(Connection& db, const WorkerEvent& event);
Result<std::vector<WorkerEvent>> query_worker_events(Connection& db, const std::string& worker_id);

Result<std::vector<MergeEntry>> query_merge_entries(Connection& db, const std::string& where,
                                                    const Bind& bind);
Status insert_merge_entry(Connection& db, const MergeEntry& entry);

}  // namespace orrery::sql
