// SqlStore: the aggregates of /metrics (store/store_metrics.h), one
// statement each, taking no write lock.
#include <algorithm>
#include <functional>

#include "store/sql/sql_store.h"

namespace orrery {
namespace {

// `SUM(CASE WHEN value <= bound ...)` for each bound: the cumulative buckets.
std::string bucket_columns(const std::string& value, const std::vector<DurationMs>& bounds) {
  std::string columns;
  for (const DurationMs bound : bounds) {
    columns += "CAST(SUM(CASE WHEN ";
    columns += value;
    columns += " <= " + std::to_string(bound) + " THEN 1 ELSE 0 END) AS BIGINT), ";
  }
  return columns;
}

template <typename Row>
Result<std::vector<Row>> read_rows(sql::Connection& db, const std::string& query,
                                   const std::function<Row(sql::Statement&)>& read,
                                   std::optional<TimeMs> now = std::nullopt) {
  auto statement = db.prepare(query);
  if (!statement) return statement.error();
  if (now) (*statement)->bind(1, *now);
  std::vector<Row> rows;
  while (true) {
    auto row = (*statement)->step();
    if (!row) return row.error();
    if (!*row) return rows;
    rows.push_back(read(**statement));
  }
}

Result<std::vector<RunCount>> run_counts(sql::Connection& db, const char* column,
                                         const char* where) {
  return read_rows<RunCount>(
      db,
      std::string("SELECT runs.loop_id, loops.name, runs.") + column +
          ", COUNT(*) FROM runs JOIN loops ON loops.id = runs.loop_id WHERE " + where +
          " GROUP BY runs.loop_id, loops.name, runs." + column +
          " ORDER BY loops.name, runs.loop_id, runs." + column,
      [](sql::Statement& s) {
        return RunCount{{s.text(0), s.text(1)}, s.text(2), s.int64(3)};
      });
}

Result<std::vector<RunHistogram>> run_histograms(sql::Connection& db, const std::string& value,
                                                 const std::vector<DurationMs>& bounds) {
  const std::string query = "SELECT runs.loop_id, loops.name, " + bucket_columns(value, bounds) +
                            "COUNT(*), CAST(COALESCE(SUM(" + value +
                            "), 0) AS BIGINT) FROM runs JOIN loops ON "
                            "loops.id = runs.loop_id WHERE " +
                            value +
                            " IS NOT NULL GROUP BY runs.loop_id, loops.name "
                            "ORDER BY loops.name, runs.loop_id";
  const int buckets = int(bounds.size());
  return read_rows<RunHistogram>(db, query, [buckets](sql::Statement& s) {
    RunHistogram histogram{{s.text(0), s.text(1)}, {}, 0, 0};
    for (int i = 0; i < buckets; ++i) histogram.cumulative.push_back(s.int64(2 + i));
    histogram.count = s.int64(2 + buckets);
    histogram.sum_ms = s.int64(3 + buckets);
    return histogram;
  });
}

}  // namespace

Result<MetricsSnapshot> SqlStore::metrics_snapshot(const MetricsBounds& bounds, TimeMs now) {
  MetricsSnapshot snapshot;
  auto runs = run_counts(*db_, "status", "1 = 1");
  if (!runs) return runs.error();
  snapshot.runs = std::move(*runs);
  auto skipped = run_counts(*db_, "skip_reason", "runs.status = 'skipped'");
  if (!skipped) return skipped.error();
  snapshot.skipped = std::move(*skipped);
  auto durations = run_histograms(*db_, "runs.duration_ms", bounds.duration_ms);
  if (!durations) return durations.error();
  snapshot.durations = std::move(*durations);
  auto latencies =
      run_histograms(*db_, "(runs.started_at - runs.scheduled_for)", bounds.dispatch_latency_ms);
  if (!latencies) return latencies.error();
  snapshot.dispatch_latencies = std::move(*latencies);
  auto items = read_rows<ItemCount>(
      *db_,
      "SELECT routes.name, work_items.status, COUNT(*) FROM work_items JOIN routes ON "
      "routes.id = work_items.route_id GROUP BY routes.name, work_items.status "
      "ORDER BY routes.name, work_items.status",
      [](sql::Statement& s) {
        return ItemCount{s.text(0), s.text(1), s.int64(2)};
      });
  if (!items) return items.error();
  snapshot.items = std::move(*items);
  auto goals = read_rows<GoalTokens>(
      *db_,
      "SELECT id, status, tokens_used, token_budget FROM goals WHERE status NOT IN "
      "('complete', 'cancelled') ORDER BY id",
      [](sql::Statement& s) {
        GoalTokens goal{s.text(0), s.text(1), s.int64(2), std::nullopt};
        if (!s.is_null(3)) goal.token_budget = s.int64(3);
        return goal;
      });
  if (!goals) return goals.error();
  snapshot.goals = std::move(*goals);
  auto cooldowns = read_rows<AccountCooldown>(
      *db_, "SELECT account, until_at FROM cooldowns WHERE until_at > ?1 ORDER BY account",
      [](sql::Statement& s) {
        return AccountCooldown{s.text(0), s.int64(1)};
      },
      now);
  if (!cooldowns) return cooldowns.error();
  snapshot.cooldowns = std::move(*cooldowns);
  auto lease = read_rows<std::pair<TimeMs, std::int64_t>>(
      *db_, "SELECT expires_at, generation FROM daemon_lease", [](sql::Statement& s) {
        return std::pair{s.int64(0), s.int64(1)};
      });
  if (!lease) return lease.error();
  for (const auto& [expires_at, generation] : *lease) {
    snapshot.lease_held = snapshot.lease_held || expires_at > now;
    snapshot.lease_generation = std::max(snapshot.lease_generation, generation);
  }
  return snapshot;
}

}  // namespace orrery
