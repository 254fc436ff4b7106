#include "cli/handles.h"

#include <algorithm>

namespace orrery::cli {

namespace {

// The tables whose ids one argument can take besides `table`'s own: `logs`
// takes a run or a loop, so a run's handle must not start a loop's id, nor
// a loop's a run's.
std::vector<IdTable> sharing_an_argument(IdTable table) {
  switch (table) {
    case IdTable::kRuns:
      return {IdTable::kLoops};
    case IdTable::kLoops:
      return {IdTable::kRuns};
    default:
      return {};
  }
}

}  // namespace

Result<std::vector<std::string>> handles_of(IdHandles& store, IdTable table,
                                            const std::vector<std::string>& ids) {
  std::vector<std::string> present;
  for (const std::string& id : ids)
    if (!id.empty()) present.push_back(id);
  auto length = store.handle_length(table, present);
  if (!length) return length.error();
  for (IdTable other : sharing_an_argument(table)) {
    auto needed = store.handle_length(other, present);
    if (!needed) return needed.error();
    *length = std::max(*length, *needed);
  }
  std::vector<std::string> handles;
  handles.reserve(ids.size());
  for (const std::string& id : ids) handles.push_back(id.substr(0, *length));
  return handles;
}

Result<std::string> handle_of(IdHandles& store, IdTable table, const std::string& id) {
  auto handles = handles_of(store, table, {id});
  if (!handles) return handles.error();
  return handles->front();
}

}  // namespace orrery::cli
