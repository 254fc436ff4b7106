#include "store/sql/item_reads.h"

#include <algorithm>

#include "store/sql/work_queue_rows.h"

namespace orrery::sql {

Result<std::vector<WorkItem>> query_items(Connection& db, const std::string& where,
                                          const Bind& bind) {
  auto query = db.prepare("SELECT " + item_select_list() + item_from_clause() + where);
  if (!query) return query.error();
  bind(**query);
  return read_all(**query, read_item);
}

Result<std::map<std::string, WorkItem>> read_items_by_id(Connection& db,
                                                         const std::vector<std::string>& ids) {
  std::map<std::string, WorkItem> items;
  for (std::size_t from = 0; from < ids.size(); from += kChunk) {
    const std::size_t size = chunk_size(ids, from);
    auto found = query_items(db, "WHERE i.id IN (" + placeholders(1, size) + ")",
                             [&](Statement& s) { bind_chunk(s, 1, ids, from, size); });
    if (!found) return found.error();
    for (WorkItem& item : *found) items[item.id] = std::move(item);
  }
  return items;
}

std::size_t chunk_size(const std::vector<std::string>& values, std::size_t from) {
  return values.size() - from == 1 ? 1 : kChunk;
}

std::string placeholders(int first, std::size_t size) {
  std::string list;
  for (std::size_t i = 0; i < size; ++i) {
    if (i > 0) list += ", ";
    list += "?";
    list += std::to_string(first + int(i));
  }
  return list;
}

void bind_chunk(Statement& s, int first, const std::vector<std::string>& values, std::size_t from,
                std::size_t size) {
  const std::size_t to = std::min(values.size(), from + size);
  for (std::size_t i = 0; i < size; ++i) s.bind(first + int(i), values[std::min(from + i, to - 1)]);
}

}  // namespace orrery::sql
