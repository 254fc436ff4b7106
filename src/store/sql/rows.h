// The column tables of loops and runs: each column's name with the function
// that binds it and the one that reads it. The SELECT, INSERT and UPDATE
// column lists and the bind order are all produced from these tables, so a
// column cannot be read or bound at the wrong position.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/loop.h"
#include "core/run.h"
#include "store/sql/connection.h"

namespace orrery::sql {

struct LoopColumn {
  const char* name;
  void (*bind)(Statement& statement, int index, const Loop& loop);
  Status (*read)(const Statement& row, int column, Loop& loop);
};

struct RunColumn {
  const char* name;
  bool tail;  // stdout/stderr: up to 256 KiB each, read only for one run
  Status (*read)(const Statement& row, int column, Run& run);
};

// A stored duration within [lo, hi]: rows written by older versions or by
// hand are not trusted to respect core/limits.h (docs/storage.md, "Stored
// durations"). stored_lease is a loop's lease_ms (1 s to kMaxLeaseMs).
DurationMs stored_duration(std::int64_t value, DurationMs lo, DurationMs hi);
DurationMs stored_lease(std::int64_t value);

// Every loop column, id first.
const std::vector<LoopColumn>& loop_columns();
// "id, name, ..." in table order, for SELECT.
std::string loop_select_list();
// INSERT of every column, ?1.. in table order.
std::string loop_insert_sql();
// A loop's columns fall in parts (docs/storage.md, "Loop versions"): its
// configuration, its schedule state, and bookkeeping (id, times, versions).
enum class LoopPart { kConfig, kState, kBookkeeping };
LoopPart loop_column_part(const LoopColumn& column);
// UPDATE of one part's columns (kConfig or kState), each bound at its table
// position by bind_loop_part, with ?1 = id: the part's version is bumped and
// updated_at set to loop_part_now_parameter(), guarded by the part's version
// = loop_part_version_parameter() (the version as read).
std::string loop_part_update_sql(LoopPart part);
int loop_part_now_parameter();
int loop_part_version_parameter();
void bind_loop_part(Statement& statement, const Loop& loop, LoopPart part);
// Binds every column of the loop to ?1.. in table order.
void bind_loop(Statement& statement, const Loop& loop);
Result<Loop> read_loop(const Statement& row);

// The terminal run statuses (core/run.h is_terminal) as an SQL list.
inline constexpr const char* kTerminalRunStatuses =
    "('succeeded', 'failed', 'timed_out', 'abandoned', 'skipped', 'cancelled')";
// The active run statuses: the condition of the partial index runs_active,
// written the same wherever a query must use that index.
inline constexpr const char* kActiveRunStatuses = "('running', 'queued', 'pending')";

// Every run column; `with_tails` false leaves out stdout and stderr.
std::string run_select_list(bool with_tails);
Result<Run> read_run(const Statement& row);          // run_select_list(true)
Result<Run> read_run_summary(const Statement& row);  // run_select_list(false)

// Steps a bound statement to the end, reading every row with `read`.
// The one number `sql` (a SELECT COUNT(*) …) gives once `bind` has bound its
// parameters.
Result<std::int64_t> count_rows(Connection& db, const std::string& sql,
                                const std::function<void(Statement&)>& bind);

template <typename Record>
Result<std::vector<Record>> read_all(Statement& statement,
                                     Result<Record> (*read)(const Statement&)) {
  std::vector<Record> records;
  while (true) {
    auto row = statement.step();
    if (!row) return row.error();
    if (!*row) return records;
    auto record = read(statement);
    if (!record) return record.error();
    records.push_back(std::move(*record));
  }
}

}  // namespace orrery::sql
