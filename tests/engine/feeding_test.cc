#include "engine/feeding.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "store/home_layout.h"
#include "support/temp_dir.h"

namespace orrery {
namespace {

constexpr TimeMs kNow = 1'800'000'000'000;

// Feeds in memory: what feed_routes asked of the store.
class FakeFeeds final : public RunFeeds {
 public:
  Result<std::vector<RunFeed>> pending_feeds(const std::string& host, int limit) override {
    if (fail_reads) return unavailable_error("database is locked");
    std::vector<RunFeed> pending;
    for (const auto& [id, feed] : feeds) {
      if (feed.status == FeedStatus::kPending && feed.host == host && int(pending.size()) < limit) {
        pending.push_back(feed);
      }
    }
    return pending;
  }
  Result<RunFeed> record_feed(const std::string& run_id, const ItemLines& lines,
                              TimeMs now) override {
    if (conflict_on == run_id) return conflict_error("the feed of run " + run_id + " is fed");
    RunFeed& feed = feeds.at(run_id);
    feed.status = FeedStatus::kFed;
    feed.created = std::int64_t(lines.items.size());
    feed.invalid = std::int64_t(lines.invalid.size());
    feed.fed_at = now;
    return feed;
  }
  Result<RunFeed> fail_feed(const std::string& run_id, const std::string& error,
                            TimeMs now) override {
    RunFeed& feed = feeds.at(run_id);
    feed.status = FeedStatus::kFailed;
    feed.error = error;
    feed.fed_at = now;
    return feed;
  }
  Result<std::optional<RunFeed>> get_feed(const std::string& run_id) override {
    auto found = feeds.find(run_id);
    if (found == feeds.end()) return std::optional<RunFeed>();
    return std::optional<RunFeed>(found->second);
  }

  void add(const std::string& run_id, const std::string& host = "here") {
    RunFeed feed;
    feed.run_id = run_id;
    feed.route_id = "route-1";
    feed.route_name = "inbox";
    feed.host = host;
    feeds[run_id] = feed;
  }

  std::map<std::string, RunFeed> feeds;
  std::string conflict_on;
  bool fail_reads = false;
};

class FakeRunners final : public RunnerRegistry {
 public:
  Status register_runner(const RunnerRecord& runner, TimeMs) override {
    runners.push_back(runner);
    return Ok{};
  }
  Status heartbeat_runner(const std::string&, TimeMs) override { return Ok{}; }
  Status remove_runner(const std::string&) override { return Ok{}; }
  Result<std::vector<RunnerRecord>> list_runners() override { return runners; }
  std::vector<RunnerRecord> runners;
};

void write_log(const std::string& home, const std::string& run_id, const std::string& text) {
  const std::string path = HomeLayout(home).run(run_id).stdout_log();
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

TEST(Feeding, EachPendingFeedOfThisHostIsReadAndRecordedAndLogged) {
  FakeFeeds feeds;
  feeds.add("r1");
  feeds.add("r2");
  feeds.add("elsewhere", "there");
  std::vector<std::string> logged;
  const ReadRunOutput read = [](const std::string& run_id) -> Result<std::string> {
    return run_id == "r1" ? std::string("{\"key\": \"a\"}\n{\"key\": \"b\"}\nbad\n")
                          : std::string("");
  };
  auto report = feed_routes(feeds, "here", read, kNow,
                            [&](const std::string& line) { logged.push_back(line); });
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->fed, 2);
  EXPECT_FALSE(report->more);
  EXPECT_EQ(feeds.feeds["r1"].created, 2);
  EXPECT_EQ(feeds.feeds["r1"].invalid, 1);
  EXPECT_EQ(feeds.feeds["r2"].status, FeedStatus::kFed);
  EXPECT_EQ(feeds.feeds["elsewhere"].status, FeedStatus::kPending);
  ASSERT_EQ(logged.size(), 2u);
  EXPECT_EQ(logged[0], "run r1 fed route inbox: 2 created, 0 refreshed, 0 duplicate, 1 invalid");
}

TEST(Feeding, AnOutputThatCannotBeReadFailsTheFeedWithTheReason) {
  FakeFeeds feeds;
  feeds.add("r1");
  std::vector<std::string> logged;
  const ReadRunOutput read = [](const std::string&) -> Result<std::string> {
    return not_found_error("its standard output is not on this host");
  };
  ASSERT_TRUE(feed_routes(feeds, "here", read, kNow, [&](const std::string& line) {
                logged.push_back(line);
              }).ok());
  EXPECT_EQ(feeds.feeds["r1"].status, FeedStatus::kFailed);
  EXPECT_EQ(feeds.feeds["r1"].error, "its standard output is not on this host");
  ASSERT_EQ(logged.size(), 1u);
  EXPECT_EQ(logged[0], "the feed of run r1 failed: its standard output is not on this host");
}

TEST(Feeding, AFeedAnotherDaemonRecordedFirstIsNoErrorAndAStoreErrorIs) {
  FakeFeeds feeds;
  feeds.add("r1");
  feeds.add("r2");
  feeds.conflict_on = "r1";
  const ReadRunOutput read = [](const std::string&) -> Result<std::string> {
    return std::string();
  };
  auto report = feed_routes(feeds, "here", read, kNow, [](const std::string&) {});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(feeds.feeds["r2"].status, FeedStatus::kFed);
  feeds.fail_reads = true;
  EXPECT_FALSE(feed_routes(feeds, "here", read, kNow, [](const std::string&) {}).ok());
}

TEST(Feeding, AFullPageOfFeedsAsksForAnotherTickAtOnce) {
  FakeFeeds feeds;
  for (int i = 0; i < kFeedsPerTick + 1; ++i) {
    std::string id = "r";  // appended: GCC 12 -O3 misreads "r" + std::to_string(…)
    id += std::to_string(100 + i);
    feeds.add(id);
  }
  const ReadRunOutput read = [](const std::string&) -> Result<std::string> {
    return std::string();
  };
  auto first = feed_routes(feeds, "here", read, kNow, [](const std::string&) {});
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->fed, kFeedsPerTick);
  EXPECT_TRUE(first->more);
  auto second = feed_routes(feeds, "here", read, kNow, [](const std::string&) {});
  EXPECT_EQ(second->fed, 1);
  EXPECT_FALSE(second->more);
}

TEST(Feeding, TheOutputIsFoundInThisDataDirectoryOrAnotherRunnersOnThisHostOnly) {
  testing::TempDir mine;
  testing::TempDir neighbour;
  testing::TempDir remote;
  FakeRunners runners;
  RunnerRecord next_door;
  next_door.host = "here";
  next_door.home = neighbour.path();
  RunnerRecord far_away;
  far_away.host = "there";
  far_away.home = remote.path();
  runners.runners = {next_door, far_away};
  write_log(mine.path(), "r-mine", "mine\n");
  write_log(neighbour.path(), "r-neighbour", "neighbour\n");
  write_log(remote.path(), "r-remote", "remote\n");
  const ReadRunOutput read = run_output_on_host(runners, mine.path(), "here");
  EXPECT_EQ(read("r-mine").value(), "mine\n");
  EXPECT_EQ(read("r-neighbour").value(), "neighbour\n");
  for (const char* absent : {"r-remote", "r-none"}) {
    auto missing = read(absent);
    ASSERT_FALSE(missing.ok()) << absent;
    EXPECT_NE(missing.error().message.find("standard output log is missing"), std::string::npos);
    EXPECT_NE(missing.error().message.find(HomeLayout(mine.path()).run(absent).stdout_log()),
              std::string::npos)
        << missing.error().message;
  }
  // A log that is not a regular file (here a directory) cannot be read.
  std::filesystem::create_directories(HomeLayout(mine.path()).run("r-dir").stdout_log());
  auto unreadable = read("r-dir");
  ASSERT_FALSE(unreadable.ok());
  EXPECT_NE(unreadable.error().message.find("could not be read"), std::string::npos)
      << unreadable.error().message;
}

}  // namespace
}  // namespace orrery
