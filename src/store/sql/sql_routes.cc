// SqlStore: routes of the admission queue (docs/admission.md, "Routes") —
// adding, finding, editing, pausing and deleting them.
#include "core/text.h"
#include "store/sql/sql_store.h"
#include "store/sql/work_queue_rows.h"

namespace orrery {
namespace {

constexpr size_t kMinRoutePrefix = 6;
constexpr int kMaxCandidates = 10;

using Bind = std::function<void(sql::Statement&)>;

Result<std::vector<Route>> query_routes(sql::Connection& db, const std::string& where,
                                        const Bind& bind) {
  auto query = db.prepare("SELECT " + sql::route_select_list() + " FROM routes " + where);
  if (!query) return query.error();
  bind(**query);
  return sql::read_all(**query, sql::read_route);
}

bool is_lower_hex(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Binds a route's settings at ?2..?15 and ?17 (?1 is its id, ?16 the time).
void bind_settings(sql::Statement& s, const Route& route) {
  s.bind(2, route.name)
      .bind(3, route.description)
      .bind(4, route.workflow_id)
      .bind(5, route.workflow_name)
      .bind(6, route.workflow_version)
      .bind(7, route_status_name(route.status))
      .bind(8, route.max_running)
      .bind(9, route.max_per_project)
      .bind(10, route.max_per_group)
      .bind(11, route.max_attempts)
      .bind(12, route.retry_delay_ms)
      .bind(13, backoff_name(route.retry_backoff))
      .bind(14, route.priority_aging_ms)
      .bind(15, route.cwd)
      .bind(17, route.webhook_secret_env);
}

Status name_is_free(sql::Connection& db, const Route& route) {
  auto taken = query_routes(db, "WHERE name = ?1 AND id != ?2",
                            [&](sql::Statement& s) { s.bind(1, route.name).bind(2, route.id); });
  if (!taken) return taken.error();
  if (taken->empty()) return Ok{};
  return conflict_error("a route named '" + visible(route.name) + "' exists already (" +
                        taken->front().id + ")");
}

Status workflow_exists(sql::Connection& db, const std::string& workflow_id) {
  auto query = db.prepare("SELECT 1 FROM workflows WHERE id = ?1");
  if (!query) return query.error();
  (*query)->bind(1, workflow_id);
  auto row = (*query)->step();
  if (!row) return row.error();
  if (*row) return Ok{};
  return not_found_error("no workflow has the id '" + visible(workflow_id) + "'");
}

// Moves the route's items from one waiting status to the other.
Status move_waiting_items(sql::Connection& db, const std::string& route_id, ItemStatus from,
                          ItemStatus to, TimeMs now) {
  auto move = db.prepare(
      "UPDATE work_items SET status = ?3, updated_at = ?4 WHERE route_id = ?1 AND status = ?2");
  if (!move) return move.error();
  (*move)
      ->bind(1, route_id)
      .bind(2, item_status_name(from))
      .bind(3, item_status_name(to))
      .bind(4, now);
  return (*move)->run();
}

}  // namespace

Result<Route> SqlStore::create_route(const Route& given, TimeMs now) {
  if (auto valid = check_route(given); !valid) return valid.error();
  Route route = given;
  route.id = new_id(now);
  route.created_at = now;
  route.updated_at = now;
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  if (auto exists = workflow_exists(*db_, route.workflow_id); !exists) return exists.error();
  if (auto free = name_is_free(*db_, route); !free) return free.error();
  auto insert = db_->prepare(
      "INSERT INTO routes (id, name, description, workflow_id, workflow_name, workflow_version, "
      "status, max_running, max_per_project, max_per_group, max_attempts, retry_delay_ms, "
      "retry_backoff, priority_aging_ms, cwd, created_at, updated_at, webhook_secret_env) VALUES "
      "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?16, ?17) "
      "ON CONFLICT (name) DO NOTHING");
  if (!insert) return insert.error();
  (*insert)->bind(1, route.id);
  bind_settings(**insert, route);
  (*insert)->bind(16, now);
  if (auto status = (*insert)->run(); !status) return status.error();
  if (db_->changes() != 1) {
    return conflict_error("a route named '" + visible(route.name) + "' exists already");
  }
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return route;
}

Result<std::optional<Route>> SqlStore::get_route(const std::string& id) {
  auto found = query_routes(*db_, "WHERE id = ?1", [&](sql::Statement& s) { s.bind(1, id); });
  if (!found) return found.error();
  if (found->empty()) return std::optional<Route>();
  return std::optional<Route>(std::move(found->front()));
}

Result<Route> SqlStore::resolve_route(const std::string& text) {
  if (text.empty()) return usage_error("a route id or name cannot be empty");
  auto exact = query_routes(*db_, "WHERE id = ?1 OR name = ?1 ORDER BY name = ?1 DESC LIMIT 1",
                            [&](sql::Statement& s) { s.bind(1, text); });
  if (!exact) return exact.error();
  if (!exact->empty()) return std::move(exact->front());
  if (text.size() >= kMinRoutePrefix && is_lower_hex(text)) {
    auto prefixed = query_routes(
        *db_, "WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3",
        [&](sql::Statement& s) { s.bind(1, text).bind(2, text + "g").bind(3, kMaxCandidates); });
    if (!prefixed) return prefixed.error();
    if (prefixed->size() == 1) return std::move(prefixed->front());
    if (prefixed->size() > 1) {
      std::string listed;
      for (const Route& route : *prefixed) {
        listed += (listed.empty() ? "" : ", ") + route.id + " (" + visible(route.name) + ")";
      }
      return conflict_error("'" + text + "' matches " + std::to_string(prefixed->size()) +
                            " routes: " + listed + "; give more of the id or the name");
    }
  }
  return not_found_error("no route has the id or name '" + visible(text) +
                         "' (orrery route ls lists them)");
}

Result<std::vector<Route>> SqlStore::list_routes() {
  return query_routes(*db_, "ORDER BY name, id", [](sql::Statement&) {});
}

Result<std::map<std::string, ItemCounts>> SqlStore::count_items_by_route() {
  auto query =
      db_->prepare("SELECT route_id, status, COUNT(*) FROM work_items GROUP BY route_id, status");
  if (!query) return query.error();
  std::map<std::string, ItemCounts> counts;
  while (true) {
    auto row = (*query)->step();
    if (!row) return row.error();
    if (!*row) return counts;
    auto status = parse_item_status((*query)->text(1));
    if (!status) return internal_error("a stored work item has " + status.error().message);
    counts[(*query)->text(0)].by_status[*status] = (*query)->int64(2);
  }
}

Result<Route> SqlStore::update_route(const Route& given, TimeMs now) {
  if (auto valid = check_route(given); !valid) return valid.error();
  Route route = given;
  route.updated_at = now;
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  // Locked: an enqueue reads the route's status under a share lock, so that
  // no item is queued on a route whose pause has committed.
  auto current =
      query_routes(*db_, "WHERE id = ?1" + std::string(db_->row_lock(sql::RowLock::kUpdate)),
                   [&](sql::Statement& s) { s.bind(1, route.id); });
  if (!current) return current.error();
  if (current->empty()) return not_found_error("no route has the id '" + route.id + "'");
  if (auto exists = workflow_exists(*db_, route.workflow_id); !exists) return exists.error();
  if (auto free = name_is_free(*db_, route); !free) return free.error();
  auto write = db_->prepare(
      "UPDATE routes SET name = ?2, description = ?3, workflow_id = ?4, workflow_name = ?5, "
      "workflow_version = ?6, status = ?7, max_running = ?8, max_per_project = ?9, "
      "max_per_group = ?10, max_attempts = ?11, retry_delay_ms = ?12, retry_backoff = ?13, "
      "priority_aging_ms = ?14, cwd = ?15, updated_at = ?16, webhook_secret_env = ?17 WHERE id = "
      "?1");
  if (!write) return write.error();
  (*write)->bind(1, route.id);
  bind_settings(**write, route);
  (*write)->bind(16, now);
  if (auto status = (*write)->run(); !status) return status.error();
  if (db_->changes() != 1) return internal_error("route " + route.id + " was not written");
  const RouteStatus was = current->front().status;
  if (was != route.status) {
    const bool pausing = route.status == RouteStatus::kPaused;
    const ItemStatus from = pausing ? ItemStatus::kQueued : ItemStatus::kDeferred;
    const ItemStatus to = pausing ? ItemStatus::kDeferred : ItemStatus::kQueued;
    if (auto moved = move_waiting_items(*db_, route.id, from, to, now); !moved) {
      return moved.error();
    }
  }
  route.created_at = current->front().created_at;
  if (auto status = notify_daemons(); !status) return status.error();
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return route;
}

Result<std::vector<std::string>> SqlStore::delete_route(const std::string& id, bool force) {
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  auto current =
      query_routes(*db_, "WHERE id = ?1" + std::string(db_->row_lock(sql::RowLock::kUpdate)),
                   [&](sql::Statement& s) { s.bind(1, id); });
  if (!current) return current.error();
  if (current->empty()) return not_found_error("no route has the id '" + id + "'");
  {
    // A loop that feeds the route keeps it (docs/admission.md, "Feeds").
    auto feeders =
        db_->prepare("SELECT name FROM loops WHERE feed_route_id = ?1 ORDER BY name LIMIT 1");
    if (!feeders) return feeders.error();
    (*feeders)->bind(1, id);
    auto row = (*feeders)->step();
    if (!row) return row.error();
    if (*row) {
      const std::string loop = visible((*feeders)->text(0));
      return conflict_error("route '" + visible(current->front().name) + "' is fed by loop " +
                            loop + "; give it another route (orrery edit " + loop +
                            " --feed ROUTE or --no-feed) or remove it first");
    }
  }
  std::vector<std::string> runs;
  std::string holders;
  {
    auto busy = db_->prepare(std::string("SELECT item_key, workflow_run_id FROM work_items "
                                         "WHERE route_id = ?1 AND status IN (") +
                             sql::kHoldingItemStatuses + ") ORDER BY item_key" +
                             std::string(db_->row_lock(sql::RowLock::kUpdate)));
    if (!busy) return busy.error();
    (*busy)->bind(1, id);
    while (true) {
      auto row = (*busy)->step();
      if (!row) return row.error();
      if (!*row) break;
      holders += (holders.empty() ? "" : ", ") + visible((*busy)->text(0));
      if (!(*busy)->text(1).empty()) runs.push_back((*busy)->text(1));
    }
  }
  if (!holders.empty() && !force) {
    return conflict_error("route '" + visible(current->front().name) +
                          "' has items admitted or running (" + holders +
                          "); cancel them, wait for them, or give --force to cancel their runs");
  }
  for (const char* statement :
       {"DELETE FROM work_items WHERE route_id = ?1", "DELETE FROM routes WHERE id = ?1"}) {
    auto remove = db_->prepare(statement);
    if (!remove) return remove.error();
    (*remove)->bind(1, id);
    if (auto status = (*remove)->run(); !status) return status.error();
  }
  if (auto orphans =
          db_->exec("DELETE FROM invocations WHERE NOT EXISTS "
                    "(SELECT 1 FROM work_items WHERE work_items.invocation_id = invocations.id)");
      !orphans) {
    return orphans.error();
  }
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return runs;
}

Result<std::optional<std::string>> SqlStore::route_of_workflow(const std::string& workflow_id) {
  auto found = query_routes(*db_, "WHERE workflow_id = ?1 ORDER BY name LIMIT 1",
                            [&](sql::Statement& s) { s.bind(1, workflow_id); });
  if (!found) return found.error();
  if (found->empty()) return std::optional<std::string>();
  return std::optional<std::string>(found->front().name);
}

}  // namespace orrery
