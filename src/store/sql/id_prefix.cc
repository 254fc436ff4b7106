#include "store/sql/id_prefix.h"

#include <vector>

#include "core/ids.h"
#include "core/text.h"

namespace orrery::sql {
namespace {

constexpr int kMaxCandidates = 5;

}  // namespace

Result<std::string> resolve_id_prefix(Connection& db, std::string_view table,
                                      const std::string& text, const IdNoun& noun) {
  const std::string one(noun.one);
  if (text.empty()) return usage_error("a " + one + " id cannot be empty");
  const std::string missing = "no " + one + " has the id '" + visible(text) + "' (" +
                              std::string(noun.list_command) + " lists them)";
  std::string sql("SELECT id FROM ");
  sql += table;
  sql += " WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3";
  auto query = db.prepare(sql);
  if (!query) return query.error();
  // The exact id sorts first among the ids it is a prefix of.
  (*query)->bind(1, text).bind(2, text + "\x7f").bind(3, kMaxCandidates);
  std::vector<std::string> candidates;
  while (true) {
    auto row = (*query)->step();
    if (!row) return row.error();
    if (!*row) break;
    candidates.push_back((*query)->text(0));
  }
  if (!candidates.empty() && candidates.front() == text) return text;
  if (text.size() < kMinIdPrefix || !is_lower_hex(text)) {
    if (text.size() < kMinIdPrefix && is_lower_hex(text)) {
      return usage_error("a " + one + " id prefix needs at least 6 characters, not '" + text + "'");
    }
    return not_found_error(missing);
  }
  if (candidates.size() == 1) return candidates.front();
  if (candidates.empty()) return not_found_error(missing);
  std::string listed;
  for (const std::string& id : candidates) listed += (listed.empty() ? "" : ", ") + id;
  return conflict_error("'" + text + "' matches several " + std::string(noun.many) + ": " + listed +
                        "; give more of the id");
}

}  // namespace orrery::sql
