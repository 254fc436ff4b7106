// SqlStore: the feeds of succeeded runs (store/run_feeds.h). A feed is
// taken by a guarded write on its pending row before anything is enqueued,
// so two daemons recording one feed at once take turns (the row lock) and
// the second finds it no longer pending.
#include <nlohmann/json.hpp>

#include "core/exact_json.h"
#include "core/text.h"
#include "store/sql/rows.h"
#include "store/sql/sql_store.h"

namespace orrery {
namespace {

// A feed with its route's name (empty once the route is gone).
constexpr const char* kFeedColumns =
    "SELECT f.run_id, f.route_id, f.host, f.status, f.created, f.refreshed, f.duplicate, "
    "f.invalid, f.invalid_json, f.error, f.created_at, f.fed_at, COALESCE(r.name, '') "
    "FROM run_feeds f LEFT JOIN routes r ON r.id = f.route_id ";

Result<RunFeed> read_feed(const sql::Statement& row) {
  RunFeed feed;
  feed.run_id = row.text(0);
  feed.route_id = row.text(1);
  feed.host = row.text(2);
  auto status = parse_feed_status(row.text(3));
  if (!status) return internal_error("a stored feed has " + status.error().message);
  feed.status = *status;
  feed.created = row.int64(4);
  feed.refreshed = row.int64(5);
  feed.duplicate = row.int64(6);
  feed.invalid = row.int64(7);
  const nlohmann::json lines = read_json(row.text(8));
  if (lines.is_array()) {
    for (const auto& line : lines) {
      if (!line.is_object() || !line.contains("line") || !line["line"].is_number_integer() ||
          !line.contains("error") || !line["error"].is_string()) {
        continue;
      }
      feed.invalid_lines.push_back({line["line"].get<int>(), line["error"].get<std::string>()});
    }
  }
  feed.error = row.text(9);
  feed.created_at = row.int64(10);
  feed.fed_at = row.optional_int64(11);
  feed.route_name = row.text(12);
  return feed;
}

Result<std::vector<RunFeed>> query_feeds(sql::Connection& db, const std::string& where,
                                         const std::function<void(sql::Statement&)>& bind) {
  auto query = db.prepare(kFeedColumns + where);
  if (!query) return query.error();
  bind(**query);
  return sql::read_all(**query, read_feed);
}

Result<RunFeed> one_feed(sql::Connection& db, const std::string& run_id) {
  auto found =
      query_feeds(db, "WHERE f.run_id = ?1", [&](sql::Statement& s) { s.bind(1, run_id); });
  if (!found) return found.error();
  if (found->empty()) return not_found_error("run " + visible(run_id) + " has no feed");
  return std::move(found->front());
}

// The first kMaxStoredInvalidLines invalid lines, as stored.
std::string invalid_json(const std::vector<InvalidLine>& invalid) {
  nlohmann::json lines = nlohmann::json::array();
  for (const InvalidLine& line : invalid) {
    if (int(lines.size()) == kMaxStoredInvalidLines) break;
    lines.push_back({{"line", line.line}, {"error", line.error}});
  }
  return write_json(lines);
}

}  // namespace

Result<std::vector<RunFeed>> SqlStore::pending_feeds(const std::string& host, int limit) {
  return query_feeds(
      *db_, "WHERE f.status = 'pending' AND f.host = ?1 ORDER BY f.created_at, f.run_id LIMIT ?2",
      [&](sql::Statement& s) { s.bind(1, host).bind(2, std::max(1, limit)); });
}

Result<std::optional<RunFeed>> SqlStore::get_feed(const std::string& run_id) {
  auto found =
      query_feeds(*db_, "WHERE f.run_id = ?1", [&](sql::Statement& s) { s.bind(1, run_id); });
  if (!found) return found.error();
  if (found->empty()) return std::optional<RunFeed>();
  return std::optional<RunFeed>(std::move(found->front()));
}

// Within an open transaction: takes the pending feed (its row locked until
// the transaction ends), or says what it is now.
Result<RunFeed> SqlStore::take_feed(const std::string& run_id, TimeMs now) {
  auto take =
      db_->prepare("UPDATE run_feeds SET fed_at = ?2 WHERE run_id = ?1 AND status = 'pending'");
  if (!take) return take.error();
  (*take)->bind(1, run_id).bind(2, now);
  if (auto status = (*take)->run(); !status) return status.error();
  const bool taken = db_->changes() == 1;
  auto feed = one_feed(*db_, run_id);
  if (!feed) return feed.error();
  if (!taken) {
    return conflict_error("the feed of run " + visible(run_id) + " is " +
                          feed_status_name(feed->status) + " already");
  }
  return feed;
}

Status SqlStore::close_feed(const RunFeed& feed, TimeMs now) {
  auto close = db_->prepare(
      "UPDATE run_feeds SET status = ?2, created = ?3, refreshed = ?4, duplicate = ?5, "
      "invalid = ?6, invalid_json = ?7, error = ?8, fed_at = ?9 "
      "WHERE run_id = ?1 AND status = 'pending'");
  if (!close) return close.error();
  (*close)
      ->bind(1, feed.run_id)
      .bind(2, feed_status_name(feed.status))
      .bind(3, feed.created)
      .bind(4, feed.refreshed)
      .bind(5, feed.duplicate)
      .bind(6, feed.invalid)
      .bind(7, invalid_json(feed.invalid_lines))
      .bind(8, feed.error)
      .bind(9, now);
  if (auto status = (*close)->run(); !status) return status;
  if (db_->changes() != 1) {
    return conflict_error("the feed of run " + visible(feed.run_id) + " changed while recorded");
  }
  return Ok{};
}

// One transaction: the pending feed taken, given its outcome by `outcome`,
// closed and read back.
Result<RunFeed> SqlStore::end_feed(const std::string& run_id, TimeMs now,
                                   const std::function<Status(RunFeed&)>& outcome) {
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  auto feed = take_feed(run_id, now);
  if (!feed) return feed.error();
  if (auto given = outcome(*feed); !given) return given.error();
  if (auto closed = close_feed(*feed, now); !closed) return closed.error();
  auto stored = one_feed(*db_, run_id);
  if (!stored) return stored.error();
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return stored;
}

Result<RunFeed> SqlStore::record_feed(const std::string& run_id, const ItemLines& lines,
                                      TimeMs now) {
  return end_feed(run_id, now, [&](RunFeed& feed) -> Status {
    auto route = get_route(feed.route_id);
    if (!route) return route.error();
    if (!route->has_value()) {
      feed.status = FeedStatus::kFailed;
      feed.error = "its route " + feed.route_id + " no longer exists";
      return Ok{};
    }
    std::vector<WorkItem> items;
    items.reserve(lines.items.size());
    for (const ItemLine& line : lines.items) {
      items.push_back(line.item);
      items.back().route_id = feed.route_id;
    }
    auto enqueued = enqueue_in_transaction(items, now);
    if (!enqueued) return enqueued.error();
    EnqueueCounts counts;
    for (const Enqueued& one : *enqueued) counts.count(one.outcome);
    feed.created = counts.created;
    feed.refreshed = counts.refreshed;
    feed.duplicate = counts.duplicate;
    feed.status = FeedStatus::kFed;
    feed.invalid = std::int64_t(lines.invalid.size());
    feed.invalid_lines = lines.invalid;  // close_feed keeps the first ones
    return Ok{};
  });
}

Result<RunFeed> SqlStore::fail_feed(const std::string& run_id, const std::string& error,
                                    TimeMs now) {
  return end_feed(run_id, now, [&](RunFeed& feed) -> Status {
    feed.status = FeedStatus::kFailed;
    feed.error = error;
    return Ok{};
  });
}

}  // namespace orrery
