// SqlStore: workflow specs — each name's versions, created atomically, and
// finding one as users address it (docs/workflows.md, "Storage").
#include <set>

#include "core/ids.h"
#include "core/workflow_spec.h"
#include "store/sql/sql_store.h"
#include "store/sql/workflow_rows.h"

namespace orrery {
namespace {

// The shortest id prefix a user may give (as for loops and runs).
constexpr size_t kMinWorkflowPrefix = 6;
// Candidates listed when a text is ambiguous.
constexpr int kMaxCandidates = 10;
// Creations of one name that may overtake this one before it gives up.
constexpr int kMaxVersionTries = 20;

using Bind = std::function<void(sql::Statement&)>;

Result<std::vector<Workflow>> query_workflows(sql::Connection& db, const std::string& where,
                                              const Bind& bind) {
  auto query = db.prepare("SELECT " + sql::workflow_select_list() + " FROM workflows " + where);
  if (!query) return query.error();
  bind(**query);
  return sql::read_all(**query, sql::read_workflow);
}

bool is_lower_hex(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::string describe_candidates(const std::vector<Workflow>& workflows) {
  std::string text;
  for (const Workflow& workflow : workflows) {
    if (!text.empty()) text += ", ";
    text +=
        workflow.id + " (" + workflow.name + " version " + std::to_string(workflow.version) + ")";
  }
  return text;
}

}  // namespace

// The next version is MAX + 1 of the name's, inserted unless another
// creation took it first (the insert then does nothing, having waited for
// the other to commit on PostgreSQL): the next try reads the new MAX.
Result<Workflow> SqlStore::create_workflow(const WorkflowSpec& spec, const std::string& id,
                                           TimeMs now) {
  if (id.empty()) return usage_error("a workflow id cannot be empty");
  if (spec.name.empty()) return usage_error("a workflow needs a name");
  const std::string stored = encode_workflow_spec(spec);
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  bool inserted = false;
  for (int tries = 0; tries < kMaxVersionTries && !inserted; ++tries) {
    auto insert = db_->prepare(
        "INSERT INTO workflows (id, name, version, status, description, goal, spec, "
        "created_at, updated_at) SELECT ?1, ?2, COALESCE(MAX(version), 0) + 1, 'active', ?3, "
        "?4, ?5, ?6, ?6 FROM workflows WHERE name = ?2 ON CONFLICT (name, version) DO NOTHING");
    if (!insert) return insert.error();
    (*insert)
        ->bind(1, id)
        .bind(2, spec.name)
        .bind(3, spec.description)
        .bind(4, spec.goal)
        .bind(5, stored)
        .bind(6, now);
    if (auto status = (*insert)->run(); !status) return status.error();
    inserted = db_->changes() == 1;
  }
  if (!inserted) {
    return unavailable_error("workflow " + spec.name +
                             " is being created by many others at once; try again");
  }
  auto created = get_workflow(id);
  if (!created) return created.error();
  if (!created->has_value()) return internal_error("created workflow " + id + " vanished");
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return std::move(**created);
}

Result<std::optional<Workflow>> SqlStore::get_workflow(const std::string& id) {
  auto found = query_workflows(*db_, "WHERE id = ?1", [&](sql::Statement& s) { s.bind(1, id); });
  if (!found) return found.error();
  if (found->empty()) return std::optional<Workflow>{};
  return std::optional<Workflow>{std::move(found->front())};
}

Result<Workflow> SqlStore::resolve_workflow(const std::string& text, std::optional<int> version) {
  if (text.empty()) return usage_error("a workflow id or name cannot be empty");
  const std::string at = version ? " version " + std::to_string(*version) : "";
  auto exact = get_workflow(text);
  if (!exact) return exact.error();
  if (exact->has_value()) {
    if (version && (*exact)->version != *version) {
      return not_found_error("workflow " + text + " is version " +
                             std::to_string((*exact)->version) + " of " + (*exact)->name +
                             ", not version " + std::to_string(*version));
    }
    return std::move(**exact);
  }
  std::vector<Workflow> candidates;
  std::set<std::string> seen;
  bool capped = false;  // a query returned its limit: there may be more
  const auto add = [&](std::vector<Workflow> found) {
    capped = capped || found.size() == size_t(kMaxCandidates);
    for (Workflow& workflow : found) {
      if (version && workflow.version != *version) continue;
      if (seen.insert(workflow.id).second) candidates.push_back(std::move(workflow));
    }
  };
  // By name: that version, or the newest.
  auto named = version
                   ? query_workflows(*db_, "WHERE name = ?1 AND version = ?2",
                                     [&](sql::Statement& s) { s.bind(1, text).bind(2, *version); })
                   : query_workflows(*db_, "WHERE name = ?1 ORDER BY version DESC LIMIT 1",
                                     [&](sql::Statement& s) { s.bind(1, text); });
  if (!named) return named.error();
  const bool name_matched = !named->empty();
  add(std::move(*named));
  if (text.size() >= kMinWorkflowPrefix && text.size() < kIdLength && is_lower_hex(text)) {
    auto prefixed = query_workflows(
        *db_, "WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3",
        [&](sql::Statement& s) { s.bind(1, text).bind(2, text + "g").bind(3, kMaxCandidates); });
    if (!prefixed) return prefixed.error();
    add(std::move(*prefixed));
  }
  if (candidates.empty()) {
    if (version && !name_matched) {
      auto any = query_workflows(*db_, "WHERE name = ?1 LIMIT 1",
                                 [&](sql::Statement& s) { s.bind(1, text); });
      if (!any) return any.error();
      if (!any->empty()) {
        return not_found_error("workflow " + text + " has no version " + std::to_string(*version));
      }
    }
    return not_found_error("no workflow has the id or name '" + text + "'" +
                           (version ? " (with" + at + ")" : ""));
  }
  if (candidates.size() > 1) {
    return conflict_error("'" + text + "' matches " + (capped ? "at least " : "") +
                          std::to_string(candidates.size()) +
                          " workflows: " + describe_candidates(candidates) + "; use an id");
  }
  return std::move(candidates.front());
}

Result<std::vector<Workflow>> SqlStore::list_workflows(bool all_versions) {
  // The UNIQUE (name, version) index answers both: every version by name,
  // or each name's newest found by one seek.
  return query_workflows(
      *db_,
      all_versions ? "ORDER BY name, version DESC"
                   : "WHERE version = (SELECT MAX(newer.version) FROM workflows AS newer WHERE "
                     "newer.name = workflows.name) ORDER BY name",
      [](sql::Statement&) {});
}

}  // namespace orrery
