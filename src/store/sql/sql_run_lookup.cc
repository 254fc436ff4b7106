// SqlStore: finding runs as users address them — by id or id prefix
// (docs/cli.md).
#include "core/ids.h"
#include "store/sql/rows.h"
#include "store/sql/sql_store.h"

namespace orrery {
namespace {

// The shortest id prefix a user may give (as for loops).
constexpr size_t kMinRunPrefix = 6;
// Candidates listed when a prefix is ambiguous.
constexpr int kMaxCandidates = 10;

bool is_lower_hex(const std::string& text) {
  return text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::string describe_candidates(const std::vector<Run>& runs) {
  std::string text;
  for (const Run& run : runs) {
    if (!text.empty()) text += ", ";
    text += run.id + " (" + run.loop_name + ", " + run_status_name(run.status) + ")";
  }
  return text;
}

}  // namespace

Result<Run> SqlStore::resolve_run(const std::string& text) {
  if (text.empty()) return usage_error("a run id cannot be empty");
  const std::string select = "SELECT " + sql::run_select_list(true) + " FROM runs ";
  auto exact = query_runs(select + "WHERE id = ?1", [&](sql::Statement& s) { s.bind(1, text); });
  if (!exact) return exact.error();
  if (!exact->empty()) return std::move(exact->front());
  if (!is_lower_hex(text) || text.size() >= kIdLength) {
    return not_found_error("no run has the id '" + text + "'");
  }
  if (text.size() < kMinRunPrefix) {
    return usage_error("run id prefix '" + text + "' is too short: give at least " +
                       std::to_string(kMinRunPrefix) + " characters of the id");
  }
  auto prefixed = query_runs(
      select + "WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3",
      [&](sql::Statement& s) { s.bind(1, text).bind(2, text + "g").bind(3, kMaxCandidates); });
  if (!prefixed) return prefixed.error();
  if (prefixed->empty()) return not_found_error("no run has the id '" + text + "'");
  if (prefixed->size() > 1) {
    const std::string count = (prefixed->size() == size_t(kMaxCandidates) ? "at least " : "") +
                              std::to_string(prefixed->size());
    return conflict_error("'" + text + "' matches " + count +
                          " runs: " + describe_candidates(*prefixed) + "; give more of the id");
  }
  return std::move(prefixed->front());
}

}  // namespace orrery
