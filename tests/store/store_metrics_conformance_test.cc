// The Store conformance suite, the aggregates of /metrics
// (store/store_metrics.h, docs/server.md "Metrics"): runs by loop and status,
// skipped slots by reason, cumulative histograms of duration and dispatch
// latency, queue depth, open goals' tokens, live cooldowns and the daemon
// lease — the same on every backend.
#include "core/goal_edits.h"
#include "store/work_queue_conformance.h"

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)

using StoreMetricsStore = WorkQueueConformance;

MetricsBounds bounds() {
  MetricsBounds made;
  made.duration_ms = {1000, 5000, 20'000};
  made.dispatch_latency_ms = {100, 1000};
  return made;
}

TEST_P(StoreMetricsStore, AnEmptyStoreHasNoRowsAndNoLease) {
  const MetricsSnapshot snapshot = ok_value(store_->metrics_snapshot(bounds(), kNow));
  EXPECT_TRUE(snapshot.runs.empty());
  EXPECT_TRUE(snapshot.skipped.empty());
  EXPECT_TRUE(snapshot.durations.empty());
  EXPECT_TRUE(snapshot.dispatch_latencies.empty());
  EXPECT_TRUE(snapshot.items.empty());
  EXPECT_TRUE(snapshot.goals.empty());
  EXPECT_TRUE(snapshot.cooldowns.empty());
  EXPECT_FALSE(snapshot.lease_held);
  EXPECT_EQ(snapshot.lease_generation, 0);
}

TEST_P(StoreMetricsStore, RunsAreCountedByLoopAndStatusWithCumulativeHistograms) {
  const Loop nightly = add_loop("nightly");
  const Loop poll = add_loop("poll");
  // nightly: three runs, started 50 ms, 500 ms and 5 s after their slots,
  // taking 0.5 s, 3 s and 30 s; one fails.
  const std::vector<std::tuple<DurationMs, DurationMs, RunStatus>> shapes = {
      {50, 500, RunStatus::kSucceeded},
      {500, 3000, RunStatus::kSucceeded},
      {5000, 30'000, RunStatus::kFailed}};
  std::int64_t duration_sum = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const auto [late, takes, status] = shapes[i];
    const TimeMs slot = kNow + TimeMs(i + 1) * kMinute;
    const ClaimedRun run = claim(nightly, slot, "runner-a", slot + late);
    finish(run.claim, status, slot + late + takes);
    duration_sum += run_at(nightly, slot).duration_ms.value_or(-1);
  }
  ok_value(store_->record_skipped(poll, kNow + kMinute, "overlap", kNow + kMinute, {}));
  ok_value(store_->record_skipped(poll, kNow + 2 * kMinute, "overlap", kNow + 2 * kMinute, {}));
  claim(poll, kNow + 3 * kMinute, "runner-a", kNow + 3 * kMinute);  // still running

  const MetricsSnapshot snapshot = ok_value(store_->metrics_snapshot(bounds(), kNow));
  std::map<std::string, std::int64_t> counts;
  for (const RunCount& count : snapshot.runs) {
    EXPECT_EQ(count.loop.loop_id, count.loop.loop_name == "nightly" ? nightly.id : poll.id);
    counts[count.loop.loop_name + " " + count.status] = count.count;
  }
  EXPECT_EQ(counts, (std::map<std::string, std::int64_t>{{"nightly failed", 1},
                                                         {"nightly succeeded", 2},
                                                         {"poll running", 1},
                                                         {"poll skipped", 2}}));
  ASSERT_EQ(snapshot.skipped.size(), 1u);
  EXPECT_EQ(snapshot.skipped[0].loop.loop_name, "poll");
  EXPECT_EQ(snapshot.skipped[0].status, "overlap");
  EXPECT_EQ(snapshot.skipped[0].count, 2);

  const RunHistogram* durations = nullptr;
  for (const RunHistogram& row : snapshot.durations)
    if (row.loop.loop_id == nightly.id) durations = &row;
  ASSERT_NE(durations, nullptr);
  EXPECT_EQ(durations->count, 3);
  EXPECT_EQ(durations->sum_ms, duration_sum);
  EXPECT_EQ(durations->cumulative, (std::vector<std::int64_t>{1, 2, 2}));
  const RunHistogram* latencies = nullptr;
  for (const RunHistogram& row : snapshot.dispatch_latencies)
    if (row.loop.loop_id == nightly.id) latencies = &row;
  ASSERT_NE(latencies, nullptr);
  EXPECT_EQ(latencies->count, 3);
  EXPECT_EQ(latencies->sum_ms, 50 + 500 + 5000);
  EXPECT_EQ(latencies->cumulative, (std::vector<std::int64_t>{1, 2}));
}

TEST_P(StoreMetricsStore, QueueGoalsCooldownsAndTheLeaseAreRead) {
  const Route route = add_route("issues");
  enqueue(route, "repo#1");
  enqueue(route, "repo#2");
  const Loop loop = add_loop("agent");
  Goal open;
  open.objective = "open";
  open.target.loop_id = loop.id;
  open.token_budget = 1000;
  open = ok_value(store_->create_goal(open, kNow));
  const Loop other = add_loop("other");
  Goal cancelled;
  cancelled.objective = "cancelled";
  cancelled.target.loop_id = other.id;
  cancelled = ok_value(store_->create_goal(cancelled, kNow));
  ok_value(store_->change_goal(
      cancelled.id, [](Goal g) { return cancel_goal(std::move(g), kNow + 1); }, kNow + 1));
  ok_value(store_->record_cooldown("claude", kNow + 90'000, "limit", kNow));
  ok_value(store_->record_cooldown("codex", kNow - 1000, "limit", kNow - 60'000));
  auto lease = ok_value(store_->acquire_daemon_lease({100, 1}, 30'000, kNow));
  ASSERT_TRUE(lease.has_value());

  const MetricsSnapshot snapshot = ok_value(store_->metrics_snapshot(bounds(), kNow + 1000));
  ASSERT_EQ(snapshot.items.size(), 1u);
  EXPECT_EQ(snapshot.items[0].route, "issues");
  EXPECT_EQ(snapshot.items[0].status, "queued");
  EXPECT_EQ(snapshot.items[0].count, 2);
  ASSERT_EQ(snapshot.goals.size(), 1u);
  EXPECT_EQ(snapshot.goals[0].goal_id, open.id);
  EXPECT_EQ(snapshot.goals[0].token_budget, 1000);
  EXPECT_EQ(snapshot.goals[0].tokens_used, 0);
  ASSERT_EQ(snapshot.cooldowns.size(), 1u);
  EXPECT_EQ(snapshot.cooldowns[0].account, "claude");
  EXPECT_TRUE(snapshot.lease_held);
  EXPECT_EQ(snapshot.lease_generation, lease->generation);
  EXPECT_FALSE(ok_value(store_->metrics_snapshot(bounds(), kNow + 31'000)).lease_held);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreMetricsStore, backends(), backend_name);

}  // namespace
}  // namespace orrery
