// Black-box scenarios of `orrery daemon` in real time: loops run on their
// schedules, each slot once (docs/daemon.md), and slots that fell due while
// no daemon ran follow the catch-up policy (docs/scheduling.md, "Due slots
// and catch-up"): latest, all, none, catch_up_limit, catch_up_window and
// missed_count.
//
// Missed slots come about in two ways: by letting five one-second slots
// pass before `daemon --once` (real time), and, for the exact counts of the
// policies, by moving a one-minute loop's next slot 4.5 minutes into the
// past, as if no daemon had run since (five slots, each at least 30 s from
// any boundary, so a slow machine cannot change the count).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <limits>

#include "daemon_fixture.h"

namespace orrery {
namespace {

constexpr TimeMs kSecond = 1000;
constexpr TimeMs kMinute = 60 * kSecond;

class DaemonSchedule : public DaemonFixture {
 protected:
  // `daemon --once --json`: its exit code and its runs (as printed).
  struct Once {
    int exit_code = -1;
    json runs;
    TimeMs launched = 0;  // just before it started
  };
  Once once(const Args& extra = {}) const {
    Args args{"--json", "daemon", "--once"};
    args.insert(args.end(), extra.begin(), extra.end());
    Once result;
    result.launched = now_ms();
    const RunResult ran = run(args);
    result.exit_code = ran.exit_code;
    const json document = json::parse(ran.out, nullptr, false);
    EXPECT_TRUE(document.is_object() && document.contains("runs"))
        << describe(with_home(args), ran);
    result.runs = document.is_object() ? document.value("runs", json::array()) : json::array();
    return result;
  }

  // A one-minute loop with five slots missed: the oldest 4.5 minutes ago,
  // the newest 30 s ago, the next one 30 s ahead. Returns the five slots.
  std::vector<TimeMs> five_missed_minutes(const std::string& name, const Args& options) {
    Args args{"--every", "1m"};
    args.insert(args.end(), options.begin(), options.end());
    for (const char* word : {"--", "true"}) args.push_back(word);
    const json added = add(name, args);
    const TimeMs oldest = now_ms() - 4 * kMinute - 30 * kSecond;
    move_next_slot(added["id"].get<std::string>(), oldest);
    std::vector<TimeMs> slots;
    for (int i = 0; i < 5; ++i) slots.push_back(oldest + i * kMinute);
    return slots;
  }

  static json of_loop(const json& runs, const std::string& name) {
    json chosen = json::array();
    for (const json& run : runs) {
      if (run["loop_name"] == name) chosen.push_back(run);
    }
    return chosen;
  }

  static std::vector<TimeMs> slots_of(const json& runs, const std::string& status = "") {
    std::vector<TimeMs> slots;
    for (const json& run : runs) {
      if (status.empty() || run["status"] == status) slots.push_back(ms_of(run["scheduled_for"]));
    }
    return slots;
  }
};

// ---------------------------------------------------------------------------
// An `--every 1s` loop under the daemon: one run per slot, each slot once.

TEST_F(DaemonSchedule, AnEverySecondLoopRunsOncePerSlotWhileTheDaemonRuns) {
  const std::string record = tmp_ + "/executions";
  // The daemon watches before the loop exists, so no slot of it can be
  // missed however slow the machine is to start a daemon.
  const size_t daemon = start_held_daemon();
  const json added = add("tick", {"--every", "1s", "--shell", record_to(record)});
  const TimeMs first = ms_of(added["next_run_at"]);
  // Five slots fall due while it watches; the last one's run is awaited.
  const TimeMs last = first + 4 * kSecond;
  sleep_until_ms(last);
  ASSERT_TRUE(eventually([&] {
    for (const json& run : runs("tick")) {
      if (ms_of(run["scheduled_for"]) == last && !in_flight(run)) return true;
    }
    return false;
  })) << runs("tick").dump(1)
      << log_of(daemon);
  const TimeMs stopped = now_ms();
  EXPECT_EQ(stop_daemon(daemon), 0) << log_of(daemon);
  ASSERT_TRUE(wait_until_settled("tick"));

  const json all = runs("tick");
  // Every slot from the first one on has exactly one row, and it succeeded.
  ASSERT_GE(all.size(), 5u) << all.dump(1);
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(ms_of(all[i]["scheduled_for"]), first + TimeMs(i) * kSecond) << all.dump(1);
    EXPECT_EQ(all[i]["status"], "succeeded") << all[i].dump();
    EXPECT_EQ(all[i]["attempt"], 1);
  }
  // About one run per second: none for a slot after the stop.
  EXPECT_LE(ms_of(all.back()["scheduled_for"]), stopped);
  // The target ran once per slot.
  const std::vector<Execution> ran = executions(record);
  ASSERT_EQ(ran.size(), all.size()) << testing::read_file(record);
  for (size_t i = 0; i < ran.size(); ++i) {
    EXPECT_EQ(ran[i].slot, all[i]["scheduled_for"].get<std::string>());
    EXPECT_GE(ran[i].started, ms_of(all[i]["scheduled_for"]));  // never early
  }
}

// A cron loop runs exactly the slots `next` lists. A cron fires at most once
// a minute, so its slots are made to fall due in the past: an hourly loop
// whose next slot is moved back about five hours, caught up with `all`.
TEST_F(DaemonSchedule, ACronLoopRunsTheSlotsNextLists) {
  for (const std::string expression : {"0 * * * *", "15,45 * * * *"}) {
    SCOPED_TRACE(expression);
    const std::string name = "cron-" + std::to_string(expression.size());
    add(name, {"--cron", expression, "--tz", "UTC", "--catch-up", "all", "--", "true"});
    const TimeMs since = now_ms() - 5 * 60 * kMinute - 30 * kMinute;
    const std::vector<TimeMs> listed = next_slots(name, since, 20);
    move_next_slot(loop(name)["id"].get<std::string>(), listed.front());
    const Once ran = once();
    EXPECT_EQ(ran.exit_code, 0) << ran.runs.dump(1);
    // The daemon takes the slots due at one instant between its launch and
    // its first claim: it runs a prefix of what `next` lists, holding every
    // slot that had passed at the launch and none after the first claim.
    TimeMs first_claim = std::numeric_limits<TimeMs>::max();
    for (const json& run : ran.runs) first_claim = std::min(first_claim, ms_of(run["created_at"]));
    const std::vector<TimeMs> slots = slots_of(ran.runs);
    ASSERT_LT(slots.size(), listed.size()) << ran.runs.dump(1);
    const std::vector<TimeMs> due(listed.begin(), listed.begin() + std::ptrdiff_t(slots.size()));
    EXPECT_EQ(slots, due) << ran.runs.dump(1);
    // Every slot that had passed at the launch is among them.
    const TimeMs last_due = due.empty() ? 0 : due.back();
    for (const TimeMs slot : listed) EXPECT_TRUE(slot > ran.launched || slot <= last_due) << slot;
    for (const TimeMs slot : due) EXPECT_LE(slot, first_claim) << slot;
    EXPECT_EQ(slots_of(runs(name)), due);
    for (const json& run : ran.runs) EXPECT_EQ(run["status"], "succeeded") << run.dump();
    // And the loop goes on with the first slot `next` lists after them.
    EXPECT_EQ(ms_of(loop(name)["next_run_at"]), listed.at(due.size()));
  }
}

// ---------------------------------------------------------------------------
// Catch-up after a downtime, in real time: five one-second slots pass with
// no daemon; `daemon --once` with `all` runs them oldest first, one after
// another.

TEST_F(DaemonSchedule, CatchUpAllRunsTheSlotsThatPassedWithNoDaemonOldestFirst) {
  const json added = add("backlog", {"--every", "1s", "--catch-up", "all", "--", "true"});
  const TimeMs first = ms_of(added["next_run_at"]);
  sleep_until_ms(first + 4 * kSecond + 500);  // slots first … first + 4 s have passed
  const Once ran = once();
  EXPECT_EQ(ran.exit_code, 0) << ran.runs.dump(1);
  ASSERT_GE(ran.runs.size(), 5u) << ran.runs.dump(1);
  // Slots that fell due before --once started: at least the five, at most
  // those due by its first claim.
  TimeMs started = ms_of(ran.runs[0]["created_at"]);
  for (const json& run : ran.runs) started = std::min(started, ms_of(run["created_at"]));
  EXPECT_LE(first + TimeMs(ran.runs.size() - 1) * kSecond, started);
  for (size_t i = 0; i < ran.runs.size(); ++i) {
    const json& run = ran.runs[i];
    EXPECT_EQ(ms_of(run["scheduled_for"]), first + TimeMs(i) * kSecond) << ran.runs.dump(1);
    EXPECT_EQ(run["status"], "succeeded") << run.dump();
    if (i > 0) {  // one after another
      EXPECT_GE(ms_of(run["started_at"]), ms_of(ran.runs[i - 1]["finished_at"]))
          << ran.runs.dump(1);
    }
  }
  const json all = runs("backlog");
  EXPECT_EQ(all.size(), ran.runs.size()) << all.dump(1);
  EXPECT_EQ(loop("backlog")["missed_count"], 0);
}

// ---------------------------------------------------------------------------
// The three policies on five missed slots (oldest 4.5 minutes ago).

TEST_F(DaemonSchedule, EachCatchUpPolicyRunsItsShareOfFiveMissedSlots) {
  struct Case {
    std::string policy;
    std::vector<int> run;      // indexes of the slots that run, oldest first
    std::vector<int> skipped;  // indexes recorded skipped (`missed`)
  };
  const std::vector<Case> cases = {
      {"latest", {4}, {0, 1, 2, 3}},
      {"all", {0, 1, 2, 3, 4}, {}},
      {"none", {}, {0, 1, 2, 3, 4}},
  };
  std::vector<std::vector<TimeMs>> slots;
  for (const Case& c : cases) {
    slots.push_back(five_missed_minutes(c.policy, {"--catch-up", c.policy}));
  }
  const Once ran = once();  // one tick plans every loop
  EXPECT_EQ(ran.exit_code, 0);
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    SCOPED_TRACE(c.policy);
    std::vector<TimeMs> expected_run, expected_skipped;
    for (const int i : c.run) expected_run.push_back(slots[k][size_t(i)]);
    for (const int i : c.skipped) expected_skipped.push_back(slots[k][size_t(i)]);
    EXPECT_EQ(slots_of(of_loop(ran.runs, c.policy)), expected_run) << ran.runs.dump(1);
    const json all = runs(c.policy);
    EXPECT_EQ(slots_of(all, "succeeded"), expected_run) << all.dump(1);
    EXPECT_EQ(slots_of(all, "skipped"), expected_skipped) << all.dump(1);
    EXPECT_EQ(all.size(), c.run.size() + c.skipped.size()) << all.dump(1);
    for (const json& run : all) {
      if (run["status"] != "skipped") continue;
      EXPECT_EQ(run["skip_reason"], "missed") << run.dump();
      EXPECT_EQ(run["attempt"], 1);
      EXPECT_TRUE(run["started_at"].is_null());
    }
    const json after = loop(c.policy);
    EXPECT_EQ(after["missed_count"], c.skipped.size()) << after.dump();
    EXPECT_EQ(ms_of(after["next_run_at"]), slots[k].back() + kMinute);
  }
  // A second --once has nothing left to catch up.
  const size_t rows = runs().size();
  const Once again = once();
  EXPECT_EQ(again.runs, json::array()) << again.runs.dump(1);
  EXPECT_EQ(runs().size(), rows);
}

// catch_up_limit: `all` runs only the newest N; skipped rows are at most N
// per plan (the newest), the rest only counted in missed_count.
// catch_up_window: a slot later than the window never runs, whatever the
// policy.
TEST_F(DaemonSchedule, CatchUpLimitAndWindowAreHonouredAndMissedCountCountsTheRest) {
  struct Case {
    std::string name;
    Args options;
    std::vector<int> run;
    std::vector<int> skipped;  // recorded rows
    int missed_count;          // every missed slot that did not run
  };
  const std::vector<Case> cases = {
      {"all-limit-3", {"--catch-up", "all", "--catch-up-limit", "3"}, {2, 3, 4}, {0, 1}, 2},
      {"all-limit-1", {"--catch-up", "all", "--catch-up-limit", "1"}, {4}, {3}, 4},
      {"none-limit-2", {"--catch-up", "none", "--catch-up-limit", "2"}, {}, {3, 4}, 5},
      {"all-window-2m", {"--catch-up", "all", "--catch-up-window", "2m"}, {3, 4}, {0, 1, 2}, 3},
      {"latest-window-2m", {"--catch-up-window", "2m"}, {4}, {0, 1, 2, 3}, 4},
      {"all-window-10s", {"--catch-up", "all", "--catch-up-window", "10s"}, {}, {0, 1, 2, 3, 4}, 5},
      {"all-limit-2-window-3m",
       {"--catch-up", "all", "--catch-up-limit", "2", "--catch-up-window", "3m"},
       {3, 4},
       {1, 2},
       3},
  };
  std::vector<std::vector<TimeMs>> slots;
  for (const Case& c : cases) slots.push_back(five_missed_minutes(c.name, c.options));
  const Once ran = once();  // one tick plans every loop
  EXPECT_EQ(ran.exit_code, 0);
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    SCOPED_TRACE(c.name);
    std::vector<TimeMs> expected_run, expected_skipped;
    for (const int i : c.run) expected_run.push_back(slots[k][size_t(i)]);
    for (const int i : c.skipped) expected_skipped.push_back(slots[k][size_t(i)]);
    EXPECT_EQ(slots_of(of_loop(ran.runs, c.name)), expected_run) << ran.runs.dump(1);
    const json all = runs(c.name);
    EXPECT_EQ(slots_of(all, "succeeded"), expected_run) << all.dump(1);
    EXPECT_EQ(slots_of(all, "skipped"), expected_skipped) << all.dump(1);
    for (const json& run : all) {
      if (run["status"] == "skipped") {
        EXPECT_EQ(run["skip_reason"], "missed");
      }
    }
    EXPECT_EQ(loop(c.name)["missed_count"], c.missed_count);
  }
}

}  // namespace
}  // namespace orrery
