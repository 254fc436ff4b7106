// RunFeed: what one succeeded run of a feeding loop gave its route
// (docs/admission.md, "Feeds") — how many of its lines were new items,
// refreshed ones, duplicates of items already admitted, running or finished,
// and invalid (the first kMaxStoredInvalidLines with their line numbers).
//
// Invariants: a feed is `pending` from the run's finish until a daemon on
// the run's host reads the run's standard output, then `fed` (the counts
// hold) or `failed` (the error says why, and no item came of it); it changes
// from pending once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/item_lines.h"
#include "core/result.h"
#include "core/time.h"

namespace orrery {

enum class FeedStatus { kPending, kFed, kFailed };

const char* feed_status_name(FeedStatus status);
Result<FeedStatus> parse_feed_status(std::string_view text);

inline constexpr int kMaxStoredInvalidLines = 100;

struct RunFeed {
  std::string run_id;
  std::string route_id;
  std::string route_name;  // as read; empty once the route is gone
  std::string host;        // where the run's output is
  FeedStatus status = FeedStatus::kPending;
  std::int64_t created = 0;
  std::int64_t refreshed = 0;
  std::int64_t duplicate = 0;
  std::int64_t invalid = 0;                // every invalid line
  std::vector<InvalidLine> invalid_lines;  // the first kMaxStoredInvalidLines
  std::string error;                       // when failed
  TimeMs created_at = 0;
  std::optional<TimeMs> fed_at;
  friend bool operator==(const RunFeed&, const RunFeed&) = default;
};

}  // namespace orrery
