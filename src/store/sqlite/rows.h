// Column lists and row readers/writers shared by the SQLite store's queries,
// so every query reads and writes loops and runs the same way.
#pragma once

#include <vector>

#include "core/loop.h"
#include "core/run.h"
#include "store/sqlite/database.h"

namespace orrery::sqlite {

// SELECT list of every loop column, in the order read_loop expects.
extern const char* const kLoopColumns;
// SELECT list of every run column, in the order read_run expects.
extern const char* const kRunColumns;

Result<Loop> read_loop(const Statement& row);
Result<Run> read_run(const Statement& row);

// Steps a bound statement to the end, reading every row with `read`.
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

// Binds the mutable loop columns to ?2.. in the order of kLoopAssignments.
extern const char* const kLoopAssignments;  // "name = ?2, description = ?3, ..."
extern const char* const kLoopInsert;       // INSERT with ?1 = id, then the same order
void bind_loop_fields(Statement& statement, const Loop& loop);

}  // namespace orrery::sqlite
