// The Store conformance suite, feeds (store/run_feeds.h, docs/admission.md
// "Feeds"): the pending feed the database writes with a succeeded run's
// finish, recording it once in one transaction with its items, failing it,
// and enqueueing many items in one transaction. Every backend must pass it.
#include <set>

#include "core/item_lines.h"
#include "store/work_queue_conformance.h"

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)

using RunFeedsStore = WorkQueueConformance;

// A loop that feeds `route`, stored.
Loop add_feeding_loop(Store& store, Loop loop, const Route& route) {
  loop.feed_route_id = route.id;
  const Status created = store.create_loop(loop);
  EXPECT_TRUE(created.ok()) << (created ? "" : created.error().message);
  return loop;
}

std::string lines_of(const std::vector<std::string>& keys) {
  std::string text;
  for (const std::string& key : keys) text += "{\"key\": \"" + key + "\"}\n";
  return text;
}

TEST_P(RunFeedsStore, OnlyASucceededRunOfAFeedingLoopGetsAPendingFeedOnItsHost) {
  const Route route = add_route("inbox");
  probe_->set_host("build-7");
  const Loop feeding = add_feeding_loop(*store_, make_loop("issues"), route);
  const Loop plain = add_loop("plain");
  std::vector<std::string> succeeded;
  const RunStatus endings[] = {RunStatus::kSucceeded, RunStatus::kFailed, RunStatus::kCancelled,
                               RunStatus::kTimedOut, RunStatus::kSucceeded};
  TimeMs slot = kNow + kMinute;
  TimeMs finished = kNow + 1000;  // feeds are listed oldest finish first
  for (const RunStatus ending : endings) {
    for (const Loop* loop : {&feeding, &plain}) {
      const ClaimedRun run = claim(*loop, slot);
      finish(run.claim, ending, ++finished);
      if (loop == &feeding && ending == RunStatus::kSucceeded) succeeded.push_back(run.run.id);
      EXPECT_EQ(ok_value(store_->get_feed(run.run.id)).has_value(),
                loop == &feeding && ending == RunStatus::kSucceeded)
          << loop->name << " " << run_status_name(ending);
    }
    slot += kMinute;
  }
  const std::vector<RunFeed> pending = ok_value(store_->pending_feeds("build-7", 10));
  ASSERT_EQ(pending.size(), succeeded.size());
  for (size_t i = 0; i < pending.size(); ++i) {
    EXPECT_EQ(pending[i].run_id, succeeded[i]);
    EXPECT_EQ(pending[i].route_id, route.id);
    EXPECT_EQ(pending[i].route_name, "inbox");
    EXPECT_EQ(pending[i].host, "build-7");
    EXPECT_EQ(pending[i].status, FeedStatus::kPending);
  }
  EXPECT_TRUE(ok_value(store_->pending_feeds("build-8", 10)).empty());
  EXPECT_EQ(ok_value(store_->pending_feeds("build-7", 1)).size(), 1u);
}

TEST_P(RunFeedsStore, AKeptOutcomeThatSucceededGetsItsFeedToo) {
  const Route route = add_route("inbox");
  const Loop loop = add_feeding_loop(*store_, make_loop("issues"), route);
  const ClaimedRun run = claim(loop, kNow + kMinute, "runner-a", kNow);
  RunOutcome outcome;
  outcome.status = RunStatus::kSucceeded;
  const Status kept =
      store_->finish_expired_claim(run.claim, outcome, kNow + 10, kNow + 60 * kMinute);
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  EXPECT_TRUE(ok_value(store_->get_feed(run.run.id)).has_value());
}

TEST_P(RunFeedsStore, ARecordedFeedEnqueuesItsLinesCountsThemAndIsRecordedOnce) {
  const Route route = add_route("inbox");
  const Loop loop = add_feeding_loop(*store_, make_loop("issues"), route);
  const WorkItem running = enqueue(route, "running").item;
  start(running);
  enqueue(route, "queued");
  const ClaimedRun run = claim(loop, kNow + kMinute);
  finish(run.claim, RunStatus::kSucceeded);
  // new a, b; refreshed queued and a again; duplicate running; two invalid.
  const ItemLines lines =
      parse_item_lines(lines_of({"a", "b", "queued", "running", "a"}) + "nope\n{\"key\": \"\"}\n");
  ASSERT_EQ(lines.invalid.size(), 2u);
  const RunFeed fed = ok_value(store_->record_feed(run.run.id, lines, kNow + 2000));
  EXPECT_EQ(fed.status, FeedStatus::kFed);
  EXPECT_EQ(fed.created, 2);
  EXPECT_EQ(fed.refreshed, 2);
  EXPECT_EQ(fed.duplicate, 1);
  EXPECT_EQ(fed.invalid, 2);
  ASSERT_EQ(fed.invalid_lines.size(), 2u);
  EXPECT_EQ(fed.invalid_lines[0].line, 6);
  EXPECT_EQ(fed.invalid_lines[1].line, 7);
  EXPECT_EQ(fed.fed_at, kNow + 2000);
  EXPECT_EQ(*ok_value(store_->get_feed(run.run.id)), fed);
  ItemFilter all;
  all.route_id = route.id;
  EXPECT_EQ(ok_value(store_->list_items(all)).size(), 4u);
  EXPECT_TRUE(ok_value(store_->pending_feeds(probe_->host_name(), 10)).empty());

  const ItemLines more = parse_item_lines(lines_of({"c", "d"}));
  const auto again = store_->record_feed(run.run.id, more, kNow + 3000);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, ErrorCode::kConflict);
  EXPECT_NE(again.error().message.find("fed already"), std::string::npos) << again.error().message;
  EXPECT_EQ(ok_value(store_->list_items(all)).size(), 4u);
  EXPECT_EQ(*ok_value(store_->get_feed(run.run.id)), fed);
}

TEST_P(RunFeedsStore, OnlyTheFirstInvalidLinesAreKeptButAllAreCounted) {
  const Route route = add_route("inbox");
  const Loop loop = add_feeding_loop(*store_, make_loop("issues"), route);
  const ClaimedRun run = claim(loop, kNow + kMinute);
  finish(run.claim, RunStatus::kSucceeded);
  std::string text;
  for (int i = 0; i < kMaxStoredInvalidLines + 50; ++i) text += "{\"key\": true}\n";
  const RunFeed fed = ok_value(store_->record_feed(run.run.id, parse_item_lines(text), kNow));
  EXPECT_EQ(fed.invalid, kMaxStoredInvalidLines + 50);
  ASSERT_EQ(int(fed.invalid_lines.size()), kMaxStoredInvalidLines);
  EXPECT_EQ(fed.invalid_lines.back().line, kMaxStoredInvalidLines);
  EXPECT_EQ(fed.created, 0);
}

TEST_P(RunFeedsStore, AFailedFeedKeepsItsReasonAndEnqueuesNothing) {
  const Route route = add_route("inbox");
  const Loop loop = add_feeding_loop(*store_, make_loop("issues"), route);
  const ClaimedRun run = claim(loop, kNow + kMinute);
  finish(run.claim, RunStatus::kSucceeded);
  const RunFeed failed = ok_value(store_->fail_feed(run.run.id, "no stdout.log", kNow + 5));
  EXPECT_EQ(failed.status, FeedStatus::kFailed);
  EXPECT_EQ(failed.error, "no stdout.log");
  EXPECT_EQ(failed.created, 0);
  const auto recorded =
      store_->record_feed(run.run.id, parse_item_lines(lines_of({"a"})), kNow + 6);
  ASSERT_FALSE(recorded.ok());
  EXPECT_EQ(recorded.error().code, ErrorCode::kConflict);
  ItemFilter all;
  all.route_id = route.id;
  EXPECT_TRUE(ok_value(store_->list_items(all)).empty());
  const auto unknown = store_->fail_feed("no-such-run", "x", kNow);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
}

TEST_P(RunFeedsStore, AFeedWhoseRouteIsGoneFailsSayingSo) {
  const Route route = add_route("inbox");
  Loop loop = add_feeding_loop(*store_, make_loop("issues"), route);
  const ClaimedRun run = claim(loop, kNow + kMinute);
  finish(run.claim, RunStatus::kSucceeded);
  loop = ok_value(store_->get_loop(loop.id)).value();
  loop.feed_route_id.clear();
  ASSERT_TRUE(store_->update_loop_parts(loop, {.config = true}, {}, kNow).ok());
  ASSERT_TRUE(store_->delete_route(route.id, false).ok());
  const RunFeed fed =
      ok_value(store_->record_feed(run.run.id, parse_item_lines(lines_of({"a"})), kNow));
  EXPECT_EQ(fed.status, FeedStatus::kFailed);
  EXPECT_NE(fed.error.find("no longer exists"), std::string::npos) << fed.error;
  EXPECT_EQ(fed.created, 0);
}

TEST_P(RunFeedsStore, ARouteThatALoopFeedsIsNotDeletedEvenByForce) {
  const Route route = add_route("inbox");
  add_feeding_loop(*store_, make_loop("issues"), route);
  enqueue(route, "a");
  for (const bool force : {false, true}) {
    const auto removed = store_->delete_route(route.id, force);
    ASSERT_FALSE(removed.ok());
    EXPECT_EQ(removed.error().code, ErrorCode::kConflict);
    EXPECT_NE(removed.error().message.find("fed by loop issues"), std::string::npos)
        << removed.error().message;
  }
  EXPECT_TRUE(ok_value(store_->get_route(route.id)).has_value());
  ItemFilter all;
  all.route_id = route.id;
  EXPECT_EQ(ok_value(store_->list_items(all)).size(), 1u);
}

TEST_P(RunFeedsStore, APrunedRunTakesItsFeedWithIt) {
  const Route route = add_route("inbox");
  const Loop loop = add_feeding_loop(*store_, make_loop("issues"), route);
  const ClaimedRun run = claim(loop, kNow + kMinute);
  finish(run.claim, RunStatus::kSucceeded);
  PruneOptions prune;
  prune.older_than = 0;
  prune.now = kNow + 60 * kMinute;
  EXPECT_EQ(ok_value(store_->prune_runs(prune)).runs, 1);
  EXPECT_FALSE(ok_value(store_->get_feed(run.run.id)).has_value());
}

TEST_P(RunFeedsStore, ABatchIsEnqueuedInOrderInOneTransactionOrNotAtAll) {
  const Route route = add_route("inbox");
  const Route other = add_route("other");
  std::vector<WorkItem> batch{make_item(route, "a"), make_item(other, "a"), make_item(route, "b"),
                              make_item(route, "a")};
  const std::vector<Enqueued> enqueued = ok_value(store_->enqueue_items(batch, kNow));
  ASSERT_EQ(enqueued.size(), 4u);
  EXPECT_EQ(enqueued[0].outcome, EnqueueOutcome::kCreated);
  EXPECT_EQ(enqueued[1].outcome, EnqueueOutcome::kCreated);
  EXPECT_EQ(enqueued[1].item.route_id, other.id);
  EXPECT_EQ(enqueued[2].outcome, EnqueueOutcome::kCreated);
  EXPECT_EQ(enqueued[3].outcome, EnqueueOutcome::kRefreshed);
  EXPECT_EQ(enqueued[3].item.id, enqueued[0].item.id);

  // A bad item anywhere, or an unknown route, stores none of the batch.
  std::vector<WorkItem> bad{make_item(route, "c"), make_item(route, "")};
  EXPECT_EQ(store_->enqueue_items(bad, kNow).error().code, ErrorCode::kUsage);
  WorkItem lost = make_item(route, "d");
  lost.route_id = "no-such-route";
  std::vector<WorkItem> unknown{make_item(route, "c"), lost};
  EXPECT_EQ(store_->enqueue_items(unknown, kNow).error().code, ErrorCode::kNotFound);
  ItemFilter all;
  all.route_id = route.id;
  std::set<std::string> keys;
  for (const WorkItem& item : ok_value(store_->list_items(all))) keys.insert(item.key);
  EXPECT_EQ(keys, (std::set<std::string>{"a", "b"}));
  EXPECT_TRUE(ok_value(store_->enqueue_items({}, kNow)).empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, RunFeedsStore, backends(), backend_name);

}  // namespace
}  // namespace orrery
