// Black-box scenarios of the overlap policy under `orrery daemon`, in real
// time (docs/scheduling.md, "Overlap"): an `--every 1s` loop whose target
// sleeps longer than a second, so that slots fall due while a run of it runs.
//   skip     the slot is recorded skipped (`overlap`);
//   queue    one slot is held (`queued`) and starts when the running one ends;
//   allow    runs overlap;
//   replace  the running run is stopped (`cancelled`, its process group
//            gone) and the new slot runs.
// Each scenario lets the daemon watch for a few seconds, stops it with
// SIGTERM (running work finishes under its supervisor), waits until nothing
// runs, then reads the history. A slot queued when the daemon stopped stays
// queued for the next daemon.
#include <gtest/gtest.h>

#include "daemon_fixture.h"

namespace orrery {
namespace {

constexpr TimeMs kSecond = 1000;

class DaemonOverlap : public DaemonFixture {
 protected:
  // Adds `name` with `--every 1s --overlap POLICY --shell COMMAND`, lets the
  // daemon watch it until `seconds` of slots have passed (while `observe`
  // is called every 50 ms), stops the daemon and waits until no run of the
  // loop is running. Returns its runs, oldest slot first.
  json watch(
      const std::string& name, const std::string& policy, const std::string& command, int seconds,
      const std::function<void()>& observe = [] {}) {
    const json added = add(name, {"--every", "1s", "--overlap", policy, "--shell", command});
    first_ = ms_of(added["next_run_at"]);
    const size_t daemon = start_held_daemon();
    const TimeMs until = first_ + TimeMs(seconds) * kSecond;
    while (now_ms() < until) {
      observe();
      std::this_thread::sleep_for(milliseconds(50));
    }
    EXPECT_EQ(stop_daemon(daemon), 0) << log_of(daemon);
    EXPECT_TRUE(eventually([&] { return with_status(runs(name), "running").empty(); }))
        << runs(name).dump(1);
    return runs(name);
  }

  // Every slot from the first on has one row: the slots are consecutive.
  void expect_one_row_per_slot(const json& all) const {
    for (size_t i = 0; i < all.size(); ++i) {
      EXPECT_EQ(ms_of(all[i]["scheduled_for"]), first_ + TimeMs(i) * kSecond) << all.dump(1);
    }
  }

  static std::vector<json> with_status(const json& all, const std::string& status) {
    std::vector<json> chosen;
    for (const json& run : all) {
      if (run["status"] == status) chosen.push_back(run);
    }
    return chosen;
  }

  // The most runs of `all` that were running at one instant.
  static int most_at_once(const json& all) {
    std::vector<std::pair<TimeMs, int>> edges;
    for (const json& run : all) {
      if (run["started_at"].is_null() || run["finished_at"].is_null()) continue;
      edges.push_back({ms_of(run["started_at"]), +1});
      edges.push_back({ms_of(run["finished_at"]), -1});
    }
    std::sort(edges.begin(), edges.end());  // an end sorts before a start at the same instant
    int running = 0, most = 0;
    for (const auto& [when, change] : edges) {
      running += change;
      most = std::max(most, running);
    }
    return most;
  }

  TimeMs first_ = 0;
};

TEST_F(DaemonOverlap, SkipRecordsTheSlotsThatFellDueWhileARunRan) {
  const json all = watch("skipper", "skip", "sleep 2.2", 5);
  ASSERT_GE(all.size(), 5u) << all.dump(1);
  expect_one_row_per_slot(all);
  const std::vector<json> ran = with_status(all, "succeeded");
  const std::vector<json> skipped = with_status(all, "skipped");
  EXPECT_EQ(ran.size() + skipped.size(), all.size()) << all.dump(1);
  EXPECT_GE(ran.size(), 2u) << all.dump(1);
  EXPECT_GE(skipped.size(), 2u) << all.dump(1);
  EXPECT_EQ(most_at_once(all), 1) << all.dump(1);
  // Each skipped slot was recorded while a run of the loop was running.
  for (const json& slot : skipped) {
    EXPECT_EQ(slot["skip_reason"], "overlap") << slot.dump();
    const TimeMs recorded = ms_of(slot["created_at"]);
    const bool during_a_run = std::any_of(ran.begin(), ran.end(), [&](const json& run) {
      return ms_of(run["started_at"]) <= recorded && recorded <= ms_of(run["finished_at"]);
    });
    EXPECT_TRUE(during_a_run) << slot.dump() << all.dump(1);
  }
}

TEST_F(DaemonOverlap, QueueHoldsOneSlotAndStartsItWhenTheRunningOneEnds) {
  size_t most_queued = 0;
  const json all = watch("queuer", "queue", "sleep 2.2", 5, [&] {
    size_t queued = 0;
    for (const json& run : runs("queuer")) queued += run["status"] == "queued";
    most_queued = std::max(most_queued, queued);
  });
  ASSERT_GE(all.size(), 5u) << all.dump(1);
  expect_one_row_per_slot(all);
  EXPECT_EQ(most_queued, 1u) << "a queued row was seen, and never two";
  const std::vector<json> ran = with_status(all, "succeeded");
  const std::vector<json> skipped = with_status(all, "skipped");
  const std::vector<json> held = with_status(all, "queued");  // held when the daemon stopped
  EXPECT_EQ(ran.size() + skipped.size() + held.size(), all.size()) << all.dump(1);
  EXPECT_LE(held.size(), 1u) << all.dump(1);
  for (const json& run : held) EXPECT_TRUE(run["started_at"].is_null()) << run.dump();
  ASSERT_GE(ran.size(), 2u) << all.dump(1);
  EXPECT_EQ(most_at_once(all), 1) << all.dump(1);
  for (const json& slot : skipped) EXPECT_EQ(slot["skip_reason"], "overlap") << slot.dump();
  // After the first, each run is a slot that fell due while the one before
  // ran, held, and started once that one ended.
  for (size_t i = 1; i < ran.size(); ++i) {
    const TimeMs previous_end = ms_of(ran[i - 1]["finished_at"]);
    EXPECT_LT(ms_of(ran[i]["scheduled_for"]), previous_end) << all.dump(1);
    EXPECT_GE(ms_of(ran[i]["started_at"]), previous_end) << all.dump(1);
    EXPECT_LT(ms_of(ran[i]["started_at"]), previous_end + 2 * kSecond) << all.dump(1);
  }
}

TEST_F(DaemonOverlap, AllowRunsEverySlotEvenWhileEarlierRunsRun) {
  const json all = watch("allower", "allow", "sleep 2.2", 5);
  ASSERT_GE(all.size(), 5u) << all.dump(1);
  expect_one_row_per_slot(all);
  EXPECT_EQ(with_status(all, "succeeded").size(), all.size()) << all.dump(1);
  EXPECT_GE(most_at_once(all), 2) << all.dump(1);
}

TEST_F(DaemonOverlap, ReplaceStopsTheRunningRunAndStartsTheNewSlot) {
  const json all = watch("replacer", "replace", "sleep 3", 5);
  ASSERT_GE(all.size(), 5u) << all.dump(1);
  expect_one_row_per_slot(all);
  // Every run but the newest was replaced by a later slot: cancelled before
  // its target's 3 s were up, its process group gone. The newest finished
  // after the daemon stopped. (Two slots planned together: the older one is
  // skipped, `overlap`.)
  for (size_t i = 0; i + 1 < all.size(); ++i) {
    const json& run = all[i];
    if (run["status"] == "skipped") {
      EXPECT_EQ(run["skip_reason"], "overlap") << run.dump();
      continue;
    }
    EXPECT_EQ(run["status"], "cancelled") << all.dump(1);
    ASSERT_FALSE(run["started_at"].is_null()) << run.dump();
    const TimeMs started = ms_of(run["started_at"]);
    const TimeMs finished = ms_of(run["finished_at"]);
    EXPECT_LT(finished, started + 3 * kSecond) << run.dump();
    // Stopped when the next slot fell due, not before.
    EXPECT_GE(finished, ms_of(all[i + 1]["scheduled_for"])) << all.dump(1);
    ASSERT_TRUE(run["pid"].is_number_integer()) << run.dump();
    EXPECT_FALSE(testing::group_alive(run["pid"].get<pid_t>())) << run.dump();
  }
  EXPECT_EQ(all.back()["status"], "succeeded") << all.dump(1);
  EXPECT_LE(most_at_once(all), 2) << all.dump(1);  // only while one stops
}

// A loop of overlap allow that falls due faster than it gets room keeps a
// bounded backlog: at most kMaxBacklog (10) queued runs, the slots beyond
// recorded skipped, reason `backlog` (docs/scheduling.md, "Overlap").
TEST_F(DaemonOverlap, AllowUnderACapacityLimitKeepsABoundedBacklogAndSkipsTheRest) {
  constexpr size_t kMaxBacklog = 10;
  add("flood", {"--every", "1s", "--overlap", "allow", "--shell", "sleep 13"});
  const size_t daemon = start_held_daemon({"--max-running", "1"});
  // The first run holds the only room for 13 s; when it ends the 12 or so
  // slots that fell due meanwhile find room for one and a backlog of ten.
  ASSERT_TRUE(eventually([&] { return !with_status(runs("flood"), "skipped").empty(); },
                         milliseconds(25'000)))
      << runs("flood").dump(1) << log_of(daemon);
  EXPECT_EQ(stop_daemon(daemon), 0) << log_of(daemon);
  const json all = runs("flood");
  EXPECT_EQ(with_status(all, "queued").size(), kMaxBacklog) << all.dump(1);
  for (const json& run : with_status(all, "skipped")) {
    EXPECT_EQ(run["skip_reason"], "backlog") << run.dump();
  }
  EXPECT_EQ(loop("flood")["missed_count"], 0);
  EXPECT_TRUE(contains(log_of(daemon), "skipped (backlog)")) << log_of(daemon);
}

}  // namespace
}  // namespace orrery

namespace orrery {
namespace {

// --max-running: slots beyond the cap wait (neither skipped nor lost) and
// start as capacity frees.
TEST_F(DaemonOverlap, MaxRunningCapsTheRunsAndTheOtherSlotsWait) {
  for (int i = 0; i < 3; ++i) {
    add("capped-" + std::to_string(i),
        {"--every", "1s", "--overlap", "allow", "--shell", "sleep 1.2"});
  }
  const size_t daemon = start_held_daemon({"--max-running", "1"});
  std::this_thread::sleep_for(milliseconds(4500));
  EXPECT_EQ(stop_daemon(daemon), 0) << log_of(daemon);
  ASSERT_TRUE(eventually([&] { return with_status(runs(), "running").empty(); }));
  const json all = runs();
  EXPECT_EQ(most_at_once(all), 1) << all.dump(1);
  EXPECT_GE(with_status(all, "succeeded").size(), 2u) << all.dump(1);
  for (const json& run : all) {
    EXPECT_TRUE(run["status"] == "succeeded" || run["status"] == "queued") << run.dump();
  }
}

}  // namespace
}  // namespace orrery
