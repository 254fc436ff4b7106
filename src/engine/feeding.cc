#include "engine/feeding.h"

#include "core/byte_size.h"
#include "core/item_lines.h"
#include "store/home_layout.h"
#include "store/regular_file.h"

namespace orrery {
namespace {

std::string feed_line(const RunFeed& feed) {
  if (feed.status == FeedStatus::kFailed) {
    return "the feed of run " + feed.run_id + " failed: " + feed.error;
  }
  return "run " + feed.run_id + " fed route " +
         (feed.route_name.empty() ? feed.route_id : feed.route_name) + ": " +
         std::to_string(feed.created) + " created, " + std::to_string(feed.refreshed) +
         " refreshed, " + std::to_string(feed.duplicate) + " duplicate, " +
         std::to_string(feed.invalid) + " invalid";
}

// One feed, recorded or failed; a conflict (another daemon recorded it
// first) is no error.
Status feed_one(RunFeeds& feeds, const RunFeed& pending, const ReadRunOutput& read_output,
                TimeMs now, const EventSink& log) {
  auto output = read_output(pending.run_id);
  auto recorded = output ? feeds.record_feed(pending.run_id, parse_item_lines(*output), now)
                         : feeds.fail_feed(pending.run_id, output.error().message, now);
  if (!recorded) {
    if (recorded.error().code == ErrorCode::kConflict) return Ok{};
    return recorded.error();
  }
  log(feed_line(*recorded));
  return Ok{};
}

}  // namespace

Result<FeedingReport> feed_routes(RunFeeds& feeds, const std::string& host,
                                  const ReadRunOutput& read_output, TimeMs now,
                                  const EventSink& log) {
  auto pending = feeds.pending_feeds(host, kFeedsPerTick);
  if (!pending) return pending.error();
  FeedingReport report;
  for (const RunFeed& feed : *pending) {
    if (auto fed = feed_one(feeds, feed, read_output, now, log); !fed) return fed.error();
    ++report.fed;
  }
  report.more = int(pending->size()) == kFeedsPerTick;
  return report;
}

ReadRunOutput run_output_on_host(RunnerRegistry& runners, const std::string& home,
                                 const std::string& host) {
  return [&runners, home, host](const std::string& run_id) -> Result<std::string> {
    // This data directory first; the registered runners are read only for
    // a log that is not here.
    const auto read_in = [&](const std::string& dir) {
      return read_regular_file(HomeLayout(dir).run(run_id).stdout_log(), kMaxFeedOutputBytes);
    };
    auto text = read_in(home);
    if (text && !text->has_value()) {
      auto registered = runners.list_runners();
      for (size_t i = 0; registered && i < registered->size(); ++i) {
        const RunnerRecord& runner = (*registered)[i];
        if (runner.host != host || runner.home == home) continue;
        text = read_in(runner.home);
        if (!text || text->has_value()) break;
      }
    }
    if (!text) {
      return usage_error("its standard output could not be read (" + text.error().message +
                         "; a feed reads at most " + format_byte_size(kMaxFeedOutputBytes) + ")");
    }
    if (text->has_value()) return std::move(**text);
    return not_found_error("its standard output log is missing: no " +
                           HomeLayout(home).run(run_id).stdout_log() +
                           ", nor one in the data directory of another runner on this host");
  };
}

}  // namespace orrery
