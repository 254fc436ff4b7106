// Reading work items (store/sql/work_queue_rows.h rows): by a WHERE clause,
// and by many ids or keys in chunks.
//
// Invariant: a list of values is read kChunk at a time with one statement
// text whatever its length (the last value repeats to fill the chunk; a
// lone value gets a statement of its own), so a server's cache of prepared
// statements stays bounded.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/work_item.h"
#include "store/sql/connection.h"

namespace orrery::sql {

using Bind = std::function<void(Statement&)>;

// The items `where` selects ("WHERE i.id = ?1", …; `bind` binds it).
Result<std::vector<WorkItem>> query_items(Connection& db, const std::string& where,
                                          const Bind& bind);

// The items of `ids` that exist, by id.
Result<std::map<std::string, WorkItem>> read_items_by_id(Connection& db,
                                                         const std::vector<std::string>& ids);

inline constexpr std::size_t kChunk = 100;
// The size of the chunk of `values` that starts at `from`.
std::size_t chunk_size(const std::vector<std::string>& values, std::size_t from);
// "?F, ?F+1, …" of `size` parameters.
std::string placeholders(int first, std::size_t size);
// Binds the chunk from `from` to parameters `first`… (the last value repeated).
void bind_chunk(Statement& s, int first, const std::vector<std::string>& values, std::size_t from,
                std::size_t size);

}  // namespace orrery::sql
