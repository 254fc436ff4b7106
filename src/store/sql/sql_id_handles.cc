// SqlStore: handles (store/id_handles.h). Each id's neighbours in the
// table's order are read through the primary key's index, two rows an id;
// the handle must outgrow the prefix it shares with either.
#include <algorithm>

#include "store/sql/sql_store.h"

namespace orrery {
namespace {

const char* table_name(IdTable table) {
  switch (table) {
    case IdTable::kLoops:
      return "loops";
    case IdTable::kRuns:
      return "runs";
    case IdTable::kWorkflows:
      return "workflows";
    case IdTable::kWorkflowRuns:
      return "workflow_runs";
    case IdTable::kRoutes:
      return "routes";
    case IdTable::kItems:
      return "work_items";
    case IdTable::kGoals:
      return "goals";
    case IdTable::kWorkers:
      return "workers";
    case IdTable::kMergeEntries:
      return "merge_entries";
  }
  return "loops";
}

std::size_t common_prefix(const std::string& a, const std::string& b) {
  const auto [end, ignored] =
      std::mismatch(a.begin(), a.begin() + std::min(a.size(), b.size()), b.begin());
  return static_cast<std::size_t>(end - a.begin());
}

// The neighbour's id the query names (`max(id) ... id < ?1` or
// `min(id) ... id > ?1`), or "" when the id has none on that side.
Result<std::string> neighbour(sql::Connection& db, const std::string& query,
                              const std::string& id) {
  auto statement = db.prepare(query);
  if (!statement) return statement.error();
  (*statement)->bind(1, id);
  auto row = (*statement)->step();
  if (!row) return row.error();
  if (!*row || (*statement)->is_null(0)) return std::string();
  return (*statement)->text(0);
}

}  // namespace

Result<std::size_t> SqlStore::handle_length(IdTable table, const std::vector<std::string>& ids) {
  const std::string name = table_name(table);
  const std::string before = "SELECT max(id) FROM " + name + " WHERE id < ?1";
  const std::string after = "SELECT min(id) FROM " + name + " WHERE id > ?1";
  std::size_t length = kMinHandleLength;
  for (const std::string& id : ids) {
    for (const std::string* query : {&before, &after}) {
      auto other = neighbour(*db_, *query, id);
      if (!other) return other.error();
      length = std::max(length, common_prefix(id, *other) + 1);
    }
    length = std::min(length, std::max(id.size(), kMinHandleLength));
  }
  return length;
}

}  // namespace orrery
