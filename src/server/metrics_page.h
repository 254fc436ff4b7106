// GET /metrics (docs/server.md, "Metrics"): the store's aggregates and the
// server's own counters in the Prometheus text format, read through a
// connection of its own at each scrape.
//
// Invariants: names follow Prometheus conventions (orrery_ prefix, _total
// counters, _seconds units); loops are labelled by name and id, since names
// need not be unique; a store that cannot be read is the error's status
// (503 for a busy or unreachable one), which the server counts as a store
// error; nothing secret is a label (goal ids, route and account names
// only).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "exec/clock.h"
#include "server/http_message.h"
#include "store/store.h"

namespace orrery::server {

// What the server itself counts, from every thread.
struct ServerCounters {
  std::atomic<std::int64_t> store_unavailable{0};  // answers of 503
  std::atomic<std::int64_t> internal_errors{0};    // answers of 500
};

// The histogram bounds of /metrics.
MetricsBounds metrics_bounds();

// The text of a snapshot read at `now`.
std::string metrics_text(const MetricsSnapshot& snapshot, const MetricsBounds& bounds, TimeMs now,
                         const ServerCounters& counters);

class MetricsPage {
 public:
  MetricsPage(std::unique_ptr<Store> store, const Clock& clock, ServerCounters& counters);
  HttpResponse render();

 private:
  std::mutex mutex_;  // one scrape at a time on the connection
  std::unique_ptr<Store> store_;
  const Clock& clock_;
  ServerCounters& counters_;
};

}  // namespace orrery::server
