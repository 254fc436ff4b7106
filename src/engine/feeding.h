// Feeding routes (docs/admission.md, "Feeds"): each pending feed of a run
// that ran on this host is read — the run's standard output, one enqueue
// object per line (core/item_lines.h) — and recorded: its valid lines
// enqueued on the route, the others counted with their line numbers, in one
// transaction (store/run_feeds.h).
//
// Invariants: a feed whose output cannot be found or read fails with the
// reason, and enqueues nothing; a store error leaves the feed pending for
// the next tick; a feed another daemon recorded first is no error.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "core/result.h"
#include "engine/tick_context.h"
#include "store/run_feeds.h"
#include "store/runner_registry.h"

namespace orrery {

// A run's standard output as this daemon finds it; an error says why it
// cannot be read (or found).
using ReadRunOutput = std::function<Result<std::string>(const std::string& run_id)>;

struct FeedingReport {
  int fed = 0;        // feeds recorded (fed or failed)
  bool more = false;  // more feeds wait: feed again at once
};

inline constexpr int kFeedsPerTick = 20;

Result<FeedingReport> feed_routes(RunFeeds& feeds, const std::string& host,
                                  const ReadRunOutput& read_output, TimeMs now,
                                  const EventSink& log);

// The reader of a daemon whose data directory is `home` on `host`: the
// run's stdout.log there, else in the data directory of a runner registered
// from this host (several runners on one host), at most kMaxFeedOutputBytes.
inline constexpr std::int64_t kMaxFeedOutputBytes = 64LL << 20;
ReadRunOutput run_output_on_host(RunnerRegistry& runners, const std::string& home,
                                 const std::string& host);

}  // namespace orrery
