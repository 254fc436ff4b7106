#include "cli/handles.h"

namespace orrery::cli {

Result<std::vector<std::string>> handles_of(IdHandles& store, IdTable table,
                                            const std::vector<std::string>& ids) {
  std::vector<std::string> present;
  for (const std::string& id : ids)
    if (!id.empty()) present.push_back(id);
  auto length = store.handle_length(table, present);
  if (!length) return length.error();
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
