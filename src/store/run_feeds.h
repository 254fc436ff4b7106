// RunFeeds: the feeds of succeeded runs (docs/admission.md, "Feeds") — a run
// of a loop that feeds a route gets a pending feed with its finish (written
// by the database itself, a trigger, so no finish misses it); a daemon on the
// run's host reads what the run printed and records the feed here.
//
// Invariants every backend keeps: a feed leaves `pending` once — its items
// are enqueued (core/work_item.h's re-enqueue rules) and its counts recorded
// in one transaction, so a feed recorded twice at once enqueues once and the
// second is a conflict; a failed feed enqueues nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/item_lines.h"
#include "core/result.h"
#include "core/run_feed.h"
#include "core/time.h"

namespace orrery {

class RunFeeds {
 public:
  virtual ~RunFeeds() = default;

  // Pending feeds of runs that ran on `host`, oldest first.
  virtual Result<std::vector<RunFeed>> pending_feeds(const std::string& host, int limit) = 0;
  // Enqueues the lines' items on the feed's route and records the counts;
  // a conflict when the feed is no longer pending. A route that is gone
  // fails the feed instead, with that reason.
  virtual Result<RunFeed> record_feed(const std::string& run_id, const ItemLines& lines,
                                      TimeMs now) = 0;
  // The feed failed (its output unreadable): no item, the error kept.
  virtual Result<RunFeed> fail_feed(const std::string& run_id, const std::string& error,
                                    TimeMs now) = 0;
  virtual Result<std::optional<RunFeed>> get_feed(const std::string& run_id) = 0;
};

}  // namespace orrery
