// Handles: how human output shows the ids of stored rows (docs/cli.md,
// "Ids"). Every id a listing or a document shows is its handle, the shortest
// prefix (at least 8 characters) that no other row of its table starts with
// (store/id_handles.h) — nor a row of a table whose ids the same argument
// takes (runs and loops, for `logs`) — so that any id shown can be typed
// back.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "store/id_handles.h"

namespace orrery::cli {

// The handles of `ids`, all of one length (a table's column).
Result<std::vector<std::string>> handles_of(IdHandles& store, IdTable table,
                                            const std::vector<std::string>& ids);

// The handles of one column of `rows`: each row's `member`, an id of `table`.
template <typename Row>
Result<std::vector<std::string>> column_handles(IdHandles& store, IdTable table,
                                                const std::vector<Row>& rows,
                                                std::string Row::*member) {
  std::vector<std::string> ids;
  ids.reserve(rows.size());
  for (const Row& row : rows) ids.push_back(row.*member);
  return handles_of(store, table, ids);
}

// The handle of one id; an empty id stays empty.
Result<std::string> handle_of(IdHandles& store, IdTable table, const std::string& id);

}  // namespace orrery::cli
