// SqlStore: work items as users see them (docs/admission.md, "Work
// items") — enqueueing, finding, listing, requeueing, cancelling, pruning.
#include <algorithm>
#include <tuple>

#include "core/text.h"
#include "store/sql/item_reads.h"
#include "store/sql/rows.h"
#include "store/sql/sql_store.h"
#include "store/sql/work_queue_rows.h"

namespace orrery {
namespace {

constexpr size_t kMinItemPrefix = 6;
// An insert that found its key taken by a concurrent enqueue reads it again
// at most this many times.
constexpr int kMaxEnqueueTries = 3;

using sql::bind_chunk;
using sql::chunk_size;
using sql::kChunk;
using sql::placeholders;
using sql::query_items;

Result<WorkItem> one_item(sql::Connection& db, const std::string& id) {
  auto found = query_items(db, "WHERE i.id = ?1", [&](sql::Statement& s) { s.bind(1, id); });
  if (!found) return found.error();
  if (found->empty()) return not_found_error("no work item has the id '" + visible(id) + "'");
  return std::move(found->front());
}

bool is_lower_hex(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::string describe(const WorkItem& item) {
  return "work item " + visible(item.route_name) + "/" + visible(item.key) + " (" + item.id + ")";
}

// The route's status, read under a share lock: a pause committing meanwhile
// waits for this enqueue, or this enqueue sees the pause.
Result<RouteStatus> locked_route_status(sql::Connection& db, const std::string& route_id) {
  auto query = db.prepare("SELECT status FROM routes WHERE id = ?1" +
                          std::string(db.row_lock(sql::RowLock::kShare)));
  if (!query) return query.error();
  (*query)->bind(1, route_id);
  auto row = (*query)->step();
  if (!row) return row.error();
  if (!*row) return not_found_error("no route has the id '" + visible(route_id) + "'");
  return parse_route_status((*query)->text(0));
}

struct ExistingItem {
  std::string id;
  ItemStatus status = ItemStatus::kQueued;
  std::string invocation_id;
};

Result<std::optional<ExistingItem>> locked_item(sql::Connection& db, const std::string& route_id,
                                                const std::string& key) {
  auto query = db.prepare(
      "SELECT id, status, invocation_id FROM work_items WHERE route_id = ?1 AND item_key = ?2" +
      std::string(db.row_lock(sql::RowLock::kUpdate)));
  if (!query) return query.error();
  (*query)->bind(1, route_id).bind(2, key);
  auto row = (*query)->step();
  if (!row) return row.error();
  if (!*row) return std::optional<ExistingItem>();
  auto status = parse_item_status((*query)->text(1));
  if (!status) return internal_error("a stored work item has " + status.error().message);
  return std::optional<ExistingItem>(ExistingItem{(*query)->text(0), *status, (*query)->text(2)});
}

void bind_invocation(sql::Statement& s, const Invocation& call, TimeMs now) {
  s.bind(2, call.source.kind)
      .bind(3, call.source.id)
      .bind(4, call.source.dedupe_key)
      .bind(5, call.subject.kind)
      .bind(6, call.subject.id)
      .bind(7, call.subject.path)
      .bind(8, call.subject.url)
      .bind(9, call.intent)
      .bind(10, call.scope_json)
      .bind(11, call.output_policy_json)
      .bind(12, now);
}

constexpr const char* kInsertInvocation =
    "INSERT INTO invocations (id, source_kind, source_id, source_dedupe_key, subject_kind, "
    "subject_id, subject_path, subject_url, intent, scope_json, output_policy_json, "
    "created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12)";

// Inserts the invocation as `id`; with a dedupe key, only while the key has
// no current invocation. Whether it was inserted.
Result<bool> insert_invocation(sql::Connection& db, const Invocation& call, const std::string& id,
                               TimeMs now) {
  std::string text = kInsertInvocation;
  if (!call.source.dedupe_key.empty()) {
    text +=
        " ON CONFLICT (source_kind, source_dedupe_key) WHERE source_dedupe_key != '' AND "
        "superseded_at IS NULL DO NOTHING";
  }
  auto insert = db.prepare(text);
  if (!insert) return insert.error();
  (*insert)->bind(1, id);
  bind_invocation(**insert, call, now);
  if (auto status = (*insert)->run(); !status) return status.error();
  return db.changes() == 1;
}

// The current invocation of the source's dedupe key, if any.
Result<std::optional<std::string>> current_invocation(sql::Connection& db, const Invocation& call) {
  auto query = db.prepare(
      "SELECT id FROM invocations WHERE source_kind = ?1 AND source_dedupe_key = ?2 AND "
      "superseded_at IS NULL");
  if (!query) return query.error();
  (*query)->bind(1, call.source.kind).bind(2, call.source.dedupe_key);
  auto row = (*query)->step();
  if (!row) return row.error();
  if (!*row) return std::optional<std::string>();
  return std::optional<std::string>((*query)->text(0));
}

// Rewrites invocation `id` with what this enqueue says — only while no item
// has started from it (every item of it waits). Whether it was rewritten.
Result<bool> rewrite_unstarted(sql::Connection& db, const Invocation& call, const std::string& id,
                               TimeMs now) {
  auto update = db.prepare(
      std::string("UPDATE invocations SET source_id = ?3, subject_kind = ?5, subject_id = ?6, "
                  "subject_path = ?7, subject_url = ?8, intent = ?9, scope_json = ?10, "
                  "output_policy_json = ?11, updated_at = ?12 WHERE id = ?1 AND superseded_at IS "
                  "NULL AND source_kind = ?2 AND source_dedupe_key = ?4 AND NOT EXISTS (SELECT 1 "
                  "FROM work_items WHERE invocation_id = ?1 AND status NOT IN (") +
      sql::kWaitingItemStatuses + "))");
  if (!update) return update.error();
  (*update)->bind(1, id);
  bind_invocation(**update, call, now);
  if (auto status = (*update)->run(); !status) return status.error();
  return db.changes() == 1;
}

// Invocation `old` stays as the items that started from it knew it; `fresh`
// becomes its key's current invocation, and the items still waiting on
// `old` move to it. False when another enqueue superseded `old` first.
Result<bool> supersede(sql::Connection& db, const Invocation& call, const std::string& old,
                       const std::string& fresh, TimeMs now) {
  auto retire = db.prepare(
      "UPDATE invocations SET superseded_at = ?2 WHERE id = ?1 AND superseded_at IS NULL");
  if (!retire) return retire.error();
  (*retire)->bind(1, old).bind(2, now);
  if (auto status = (*retire)->run(); !status) return status.error();
  if (db.changes() != 1) return false;
  auto inserted = insert_invocation(db, call, fresh, now);
  if (!inserted) return inserted.error();
  if (!*inserted) {
    return internal_error("invocation " + old + " was superseded but its successor was not stored");
  }
  auto move = db.prepare(std::string("UPDATE work_items SET invocation_id = ?2 WHERE "
                                     "invocation_id = ?1 AND status IN (") +
                         sql::kWaitingItemStatuses + ")");
  if (!move) return move.error();
  (*move)->bind(1, old).bind(2, fresh);
  if (auto status = (*move)->run(); !status) return status.error();
  return true;
}

// The invocation the item comes from (docs/admission.md, "Invocations and
// work items"): a new one without a dedupe key; with one, the key's current
// invocation, rewritten with what this enqueue says while every item of it
// still waits, else superseded by a new one — an item that has started
// keeps the invocation it started from as it was.
Result<std::string> write_invocation(sql::Connection& db, const Invocation& call,
                                     const std::string& fresh_id, TimeMs now) {
  if (call.source.dedupe_key.empty()) {
    auto inserted = insert_invocation(db, call, fresh_id, now);
    if (!inserted) return inserted.error();
    return fresh_id;
  }
  for (int tries = 0; tries < kMaxEnqueueTries; ++tries) {
    auto current = current_invocation(db, call);
    if (!current) return current.error();
    if (!*current) {
      auto inserted = insert_invocation(db, call, fresh_id, now);
      if (!inserted) return inserted.error();
      if (*inserted) return fresh_id;
      continue;  // another enqueue of the key inserted one first
    }
    auto rewritten = rewrite_unstarted(db, call, **current, now);
    if (!rewritten) return rewritten.error();
    if (*rewritten) return **current;
    auto superseded = supersede(db, call, **current, fresh_id, now);
    if (!superseded) return superseded.error();
    if (*superseded) return fresh_id;
  }
  return unavailable_error("the invocation of " + visible(call.source.kind) + " key '" +
                           visible(call.source.dedupe_key) +
                           "' kept changing under concurrent enqueues; try again");
}

Status delete_if_unused(sql::Connection& db, const std::string& invocation_id) {
  auto remove = db.prepare(
      "DELETE FROM invocations WHERE id = ?1 AND NOT EXISTS "
      "(SELECT 1 FROM work_items WHERE invocation_id = ?1)");
  if (!remove) return remove.error();
  (*remove)->bind(1, invocation_id);
  return (*remove)->run();
}

// The effective priority of a queued item as SQL (core/work_item.h), at ?6.
std::string effective_priority_sql() {
  return "CASE WHEN r.priority_aging_ms > 0 AND ?6 > i.queued_at THEN i.priority + "
         "(?6 - i.queued_at) / r.priority_aging_ms ELSE i.priority END";
}

// What one enqueue wrote, before its item is read back.
struct Written {
  std::string id;
  EnqueueOutcome outcome = EnqueueOutcome::kCreated;
  std::string invocation_id;  // the item's invocation after it
};

using NewId = std::function<std::string()>;

// Within a transaction that holds the route's share lock (route_status) and
// the item's row lock, `known` being the item as it was read (none: no
// item): creates, refreshes or reports it. An insert that loses a race to
// another process's enqueue of the key reads the key again.
Result<Written> enqueue_known(sql::Connection& db, const WorkItem& given, RouteStatus route_status,
                              std::optional<ExistingItem> known, const NewId& new_id, TimeMs now) {
  for (int tries = 0; tries < kMaxEnqueueTries; ++tries) {
    if (tries > 0) {
      auto again = locked_item(db, given.route_id, given.key);
      if (!again) return again.error();
      known = *again;
    }
    const EnqueueOutcome outcome =
        enqueue_outcome(known ? std::optional(known->status) : std::nullopt);
    if (outcome == EnqueueOutcome::kDuplicate) {
      return Written{known->id, outcome, known->invocation_id};
    }
    auto invocation = write_invocation(db, given.invocation, new_id(), now);
    if (!invocation) return invocation.error();
    if (outcome == EnqueueOutcome::kCreated) {
      const std::string item_id = new_id();
      const ItemStatus status =
          route_status == RouteStatus::kPaused ? ItemStatus::kDeferred : ItemStatus::kQueued;
      auto insert = db.prepare(
          "INSERT INTO work_items (id, route_id, item_key, invocation_id, status, priority, "
          "project, item_group, queued_at, input_json, created_at, updated_at) VALUES (?1, ?2, "
          "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?9, ?9) ON CONFLICT (route_id, item_key) DO NOTHING");
      if (!insert) return insert.error();
      (*insert)
          ->bind(1, item_id)
          .bind(2, given.route_id)
          .bind(3, given.key)
          .bind(4, *invocation)
          .bind(5, item_status_name(status))
          .bind(6, given.priority)
          .bind(7, given.project)
          .bind(8, given.group)
          .bind(9, now)
          .bind(10, given.input_json);
      if (auto run = (*insert)->run(); !run) return run.error();
      if (db.changes() == 1) return Written{item_id, outcome, *invocation};
      // Another enqueue of the key committed first (PostgreSQL: this insert
      // waited for it): read its item and go on as a refresh or duplicate.
      if (auto unused = delete_if_unused(db, *invocation); !unused) return unused.error();
      continue;
    }
    auto refresh = db.prepare(std::string("UPDATE work_items SET priority = ?2, project = ?3, "
                                          "item_group = ?4, input_json = ?5, "
                                          "invocation_id = ?6, updated_at = ?7 WHERE id = ?1 "
                                          "AND status IN (") +
                              sql::kWaitingItemStatuses + ")");
    if (!refresh) return refresh.error();
    (*refresh)
        ->bind(1, known->id)
        .bind(2, given.priority)
        .bind(3, given.project)
        .bind(4, given.group)
        .bind(5, given.input_json)
        .bind(6, *invocation)
        .bind(7, now);
    if (auto run = (*refresh)->run(); !run) return run.error();
    if (db.changes() != 1) {
      return internal_error("work item " + known->id + " changed while it was refreshed");
    }
    if (known->invocation_id != *invocation) {
      if (auto unused = delete_if_unused(db, known->invocation_id); !unused) return unused.error();
    }
    return Written{known->id, outcome, *invocation};
  }
  return unavailable_error("the key '" + visible(given.key) +
                           "' kept changing under concurrent enqueues; try again");
}

// The items of `keys` (sorted, one route) as they are, each row locked:
// concurrent batches lock in key order and never wait on each other in a
// circle.
Status read_known(sql::Connection& db, const std::string& route_id,
                  const std::vector<std::string>& keys,
                  std::map<std::string, ExistingItem>& known) {
  for (size_t from = 0; from < keys.size(); from += kChunk) {
    const size_t size = chunk_size(keys, from);
    auto query = db.prepare(
        "SELECT item_key, id, status, invocation_id FROM work_items "
        "WHERE route_id = ?1 AND item_key IN (" +
        placeholders(2, size) + ") ORDER BY item_key" +
        std::string(db.row_lock(sql::RowLock::kUpdate)));
    if (!query) return query.error();
    (*query)->bind(1, route_id);
    bind_chunk(**query, 2, keys, from, size);
    while (true) {
      auto row = (*query)->step();
      if (!row) return row.error();
      if (!*row) break;
      auto status = parse_item_status((*query)->text(2));
      if (!status) return internal_error("a stored work item has " + status.error().message);
      known[(*query)->text(0)] = ExistingItem{(*query)->text(1), *status, (*query)->text(3)};
    }
  }
  return Ok{};
}

}  // namespace

Result<Enqueued> SqlStore::enqueue_item(const WorkItem& given, TimeMs now) {
  auto enqueued = enqueue_items({given}, now);
  if (!enqueued) return enqueued.error();
  return std::move(enqueued->front());
}

Result<std::vector<Enqueued>> SqlStore::enqueue_items(const std::vector<WorkItem>& items,
                                                      TimeMs now) {
  for (const WorkItem& item : items) {
    if (auto valid = check_item_fields(item); !valid) return valid.error();
  }
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  auto enqueued = enqueue_in_transaction(items, now);
  if (!enqueued) return enqueued.error();
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return enqueued;
}

// Within an open transaction: each route read (and share-locked) once, the
// items that exist read (and row-locked) a chunk at a time in key order,
// each item written in key order (a key given twice: in the order given),
// then read back; the outcomes in the order given. The daemons are told when
// anything changed.
Result<std::vector<Enqueued>> SqlStore::enqueue_in_transaction(const std::vector<WorkItem>& items,
                                                               TimeMs now) {
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tie(items[a].route_id, items[a].key) < std::tie(items[b].route_id, items[b].key);
  });
  std::map<std::string, RouteStatus> routes;
  std::map<std::string, std::map<std::string, ExistingItem>> known;  // route -> key -> item
  for (size_t at = 0; at < order.size();) {
    const std::string& route_id = items[order[at]].route_id;
    std::vector<std::string> keys;
    for (; at < order.size() && items[order[at]].route_id == route_id; ++at) {
      if (keys.empty() || keys.back() != items[order[at]].key) keys.push_back(items[order[at]].key);
    }
    auto status = locked_route_status(*db_, route_id);
    if (!status) return status.error();
    routes[route_id] = *status;
    if (auto read = read_known(*db_, route_id, keys, known[route_id]); !read) return read.error();
  }
  const NewId fresh = [this, now] { return new_id(now); };
  std::vector<Written> written(items.size());
  bool changed = false;
  for (size_t index : order) {
    const WorkItem& item = items[index];
    auto& of_route = known[item.route_id];
    auto found = of_route.find(item.key);
    auto one = enqueue_known(*db_, item, routes[item.route_id],
                             found == of_route.end() ? std::nullopt : std::optional(found->second),
                             fresh, now);
    if (!one) return one.error();
    if (one->outcome != EnqueueOutcome::kDuplicate) {
      changed = true;
      // The key given again later in the batch finds it waiting.
      const ItemStatus waiting = routes[item.route_id] == RouteStatus::kPaused
                                     ? ItemStatus::kDeferred
                                     : ItemStatus::kQueued;
      of_route[item.key] = ExistingItem{one->id, waiting, one->invocation_id};
    }
    written[index] = std::move(*one);
  }
  std::vector<std::string> ids;
  for (const Written& one : written) ids.push_back(one.id);
  auto read = sql::read_items_by_id(*db_, ids);
  if (!read) return read.error();
  std::vector<Enqueued> enqueued;
  enqueued.reserve(items.size());
  for (const Written& one : written) {
    auto item = read->find(one.id);
    if (item == read->end()) return internal_error("work item " + one.id + " was not stored");
    enqueued.push_back(Enqueued{item->second, one.outcome});
  }
  if (changed) {
    if (auto status = notify_daemons(); !status) return status.error();
  }
  return enqueued;
}

Result<std::optional<WorkItem>> SqlStore::get_item(const std::string& id) {
  auto found = query_items(*db_, "WHERE i.id = ?1", [&](sql::Statement& s) { s.bind(1, id); });
  if (!found) return found.error();
  if (found->empty()) return std::optional<WorkItem>();
  return std::optional<WorkItem>(std::move(found->front()));
}

Result<WorkItem> SqlStore::resolve_item(const std::string& text) {
  if (text.empty()) return usage_error("a work item id or ROUTE/KEY cannot be empty");
  auto exact = get_item(text);
  if (!exact) return exact.error();
  if (exact->has_value()) return std::move(**exact);
  if (text.size() >= kMinItemPrefix && is_lower_hex(text)) {
    auto prefixed = query_items(*db_, "WHERE i.id >= ?1 AND i.id < ?2 ORDER BY i.id LIMIT 10",
                                [&](sql::Statement& s) { s.bind(1, text).bind(2, text + "g"); });
    if (!prefixed) return prefixed.error();
    if (prefixed->size() == 1) return std::move(prefixed->front());
    if (prefixed->size() > 1) {
      std::string listed;
      for (const WorkItem& item : *prefixed)
        listed += (listed.empty() ? "" : ", ") + describe(item);
      return conflict_error("'" + text + "' matches " + std::to_string(prefixed->size()) +
                            " work items: " + listed + "; give more of the id");
    }
  }
  if (text.find('/') != std::string::npos) {
    auto named = query_items(*db_, "WHERE r.name || '/' || i.item_key = ?1 ORDER BY i.id LIMIT 10",
                             [&](sql::Statement& s) { s.bind(1, text); });
    if (!named) return named.error();
    if (named->size() == 1) return std::move(named->front());
    if (named->size() > 1) {
      std::string listed;
      for (const WorkItem& item : *named) listed += (listed.empty() ? "" : ", ") + describe(item);
      return conflict_error("'" + visible(text) + "' names " + std::to_string(named->size()) +
                            " work items: " + listed + "; use an id");
    }
  }
  return not_found_error("no work item has the id or ROUTE/KEY '" + visible(text) +
                         "' (orrery items lists them)");
}

namespace {

// The items a filter selects (its route, status and project), as ?1-?3.
constexpr const char* kItemFilterWhere =
    "WHERE (?1 = '' OR i.route_id = ?1) AND (?2 = '' OR i.status = ?2) AND "
    "(?3 = '' OR i.project = ?3)";

void bind_item_filter(sql::Statement& s, const ItemFilter& filter) {
  s.bind(1, filter.route_id)
      .bind(2, filter.status ? item_status_name(*filter.status) : "")
      .bind(3, filter.project);
}

}  // namespace

Result<std::vector<WorkItem>> SqlStore::list_items(const ItemFilter& filter) {
  std::string where = kItemFilterWhere;
  const bool by_rank = filter.status == ItemStatus::kQueued;
  where += by_rank ? " ORDER BY " + effective_priority_sql() + " DESC, i.queued_at, i.item_key"
                   : std::string(" ORDER BY i.created_at DESC, i.id DESC");
  where += " LIMIT ?4 OFFSET ?5";
  return query_items(*db_, where, [&](sql::Statement& s) {
    bind_item_filter(s, filter);
    s.bind(4, filter.limit).bind(5, filter.offset);
    if (by_rank) s.bind(6, filter.now);
  });
}

Result<std::int64_t> SqlStore::count_items(const ItemFilter& filter) {
  return sql::count_rows(*db_, std::string("SELECT COUNT(*) FROM work_items i ") + kItemFilterWhere,
                         [&](sql::Statement& s) { bind_item_filter(s, filter); });
}

Result<WorkItem> SqlStore::requeue_item(const std::string& id, const std::string& reason,
                                        TimeMs now) {
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  auto item = one_item(*db_, id);
  if (!item) return item.error();
  if (!item_is_requeueable(item->status)) {
    return conflict_error(describe(*item) + " is " + item_status_name(item->status) +
                          "; only succeeded, failed, dead_letter and cancelled items are "
                          "requeued");
  }
  auto route_status = locked_route_status(*db_, item->route_id);
  if (!route_status) return route_status.error();
  const ItemStatus to =
      *route_status == RouteStatus::kPaused ? ItemStatus::kDeferred : ItemStatus::kQueued;
  const std::string said =
      reason.empty() ? std::string("requeued from ") + item_status_name(item->status) : reason;
  auto write = db_->prepare(
      "UPDATE work_items SET status = ?3, attempts = 0, free_returns = 0, next_attempt_at = NULL, "
      "queued_at = ?4, last_reason = ?5, updated_at = ?4 WHERE id = ?1 AND status = ?2");
  if (!write) return write.error();
  (*write)
      ->bind(1, id)
      .bind(2, item_status_name(item->status))
      .bind(3, item_status_name(to))
      .bind(4, now)
      .bind(5, append_reason(item->last_reason, said));
  if (auto status = (*write)->run(); !status) return status.error();
  if (db_->changes() != 1) return conflict_error(describe(*item) + " changed; try again");
  auto after = one_item(*db_, id);
  if (!after) return after.error();
  if (auto status = notify_daemons(); !status) return status.error();
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return after;
}

Result<WorkItem> SqlStore::cancel_item(const std::string& id, const std::string& reason,
                                       TimeMs now) {
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  auto item = one_item(*db_, id);
  if (!item) return item.error();
  const ItemStatus was = item->status;
  if (was == ItemStatus::kSucceeded || was == ItemStatus::kDeadLetter ||
      was == ItemStatus::kCancelled) {
    return conflict_error(describe(*item) + " is " + item_status_name(was) +
                          " already; only an item not yet finished is cancelled");
  }
  const std::string said = reason.empty() ? std::string("cancelled") : reason;
  auto write = db_->prepare(
      "UPDATE work_items SET status = 'cancelled', next_attempt_at = NULL, last_reason = ?3, "
      "updated_at = ?4 WHERE id = ?1 AND status = ?2");
  if (!write) return write.error();
  (*write)
      ->bind(1, id)
      .bind(2, item_status_name(was))
      .bind(3, append_reason(item->last_reason, said))
      .bind(4, now);
  if (auto status = (*write)->run(); !status) return status.error();
  if (db_->changes() != 1) return conflict_error(describe(*item) + " changed; try again");
  auto after = one_item(*db_, id);
  if (!after) return after.error();
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return after;
}

Result<std::int64_t> SqlStore::prune_items(TimeMs before, bool dry_run) {
  if (dry_run) {
    auto count = db_->prepare(std::string("SELECT COUNT(*) FROM work_items WHERE status IN (") +
                              sql::kFinishedItemStatuses + ") AND updated_at < ?1");
    if (!count) return count.error();
    (*count)->bind(1, before);
    auto row = (*count)->step();
    if (!row) return row.error();
    return (*count)->int64(0);
  }
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  auto remove = db_->prepare(std::string("DELETE FROM work_items WHERE status IN (") +
                             sql::kFinishedItemStatuses + ") AND updated_at < ?1");
  if (!remove) return remove.error();
  (*remove)->bind(1, before);
  if (auto status = (*remove)->run(); !status) return status.error();
  const std::int64_t removed = db_->changes();
  if (removed > 0) {
    if (auto orphans =
            db_->exec("DELETE FROM invocations WHERE NOT EXISTS "
                      "(SELECT 1 FROM work_items WHERE work_items.invocation_id = invocations.id)");
        !orphans) {
      return orphans.error();
    }
  }
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return removed;
}

}  // namespace orrery
