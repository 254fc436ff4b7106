// StoreMetrics: the store's aggregates that /metrics reports (docs/server.md,
// "Metrics"), each read by one statement without taking a write lock, so
// that a scrape never holds up the daemon (two aggregates may straddle a
// change, as two scrapes would).
//
// Invariants: counts are over the runs the store still keeps (pruning lowers
// them, which Prometheus reads as a counter reset); histogram buckets are
// cumulative, one per bound given, lowest bound first; a loop is named by its
// id and its current name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/time.h"

namespace orrery {

struct LoopLabel {
  std::string loop_id;
  std::string loop_name;
};

struct RunCount {
  LoopLabel loop;
  std::string status;  // a run status, or for skipped runs their skip reason
  std::int64_t count = 0;
};

// A histogram of one loop's runs, in milliseconds.
struct RunHistogram {
  LoopLabel loop;
  std::vector<std::int64_t> cumulative;  // runs at or under each bound
  std::int64_t count = 0;
  std::int64_t sum_ms = 0;
};

struct ItemCount {
  std::string route;
  std::string status;
  std::int64_t count = 0;
};

struct GoalTokens {
  std::string goal_id;
  std::string status;
  std::int64_t tokens_used = 0;
  std::optional<std::int64_t> token_budget;
};

struct AccountCooldown {
  std::string account;
  TimeMs until_at = 0;
};

struct MetricsSnapshot {
  std::vector<RunCount> runs;                    // by loop and status
  std::vector<RunCount> skipped;                 // by loop and skip reason
  std::vector<RunHistogram> durations;           // finished runs
  std::vector<RunHistogram> dispatch_latencies;  // started_at - scheduled_for
  std::vector<ItemCount> items;                  // by route and status
  std::vector<GoalTokens> goals;                 // goals that are not complete or cancelled
  std::vector<AccountCooldown> cooldowns;        // cooldowns that end after `now`
  bool lease_held = false;                       // a daemon's lease is live at `now`
  std::int64_t lease_generation = 0;             // 0 when no daemon ever held it
};

struct MetricsBounds {
  std::vector<DurationMs> duration_ms;
  std::vector<DurationMs> dispatch_latency_ms;
};

class StoreMetrics {
 public:
  virtual ~StoreMetrics() = default;

  virtual Result<MetricsSnapshot> metrics_snapshot(const MetricsBounds& bounds, TimeMs now) = 0;
};

}  // namespace orrery
