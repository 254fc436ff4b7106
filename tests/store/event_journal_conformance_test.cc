// The Store conformance suite, the event journal (store/event_journal.h,
// docs/server.md "Live events"): each change of a loop, run, lease or goal is
// journalled by the database in the transaction that makes it, in order, with
// the same kinds and payloads on every backend, and the journal keeps about
// the last kJournalKeep events.
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include "core/goal_edits.h"
#include "store/sql/event_schema.h"
#include "store/workflow_conformance.h"

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)

using EventJournalStore = StoreConformance;

std::vector<JournalEvent> all_events(Store& store, std::int64_t after = 0) {
  return ok_value(store.events_after(after, 1000));
}

std::vector<std::string> kinds(const std::vector<JournalEvent>& events) {
  std::vector<std::string> names;
  for (const JournalEvent& event : events) names.push_back(event.kind);
  return names;
}

nlohmann::json payload(const JournalEvent& event) {
  return nlohmann::json::parse(event.payload_json);
}

TEST_P(EventJournalStore, AnEmptyJournalHasNoEventsAndRefusesANonPositiveLimit) {
  EXPECT_EQ(ok_value(store_->last_event_id()), 0);
  EXPECT_TRUE(all_events(*store_).empty());
  for (const int limit : {0, -1, -1000}) {
    auto refused = store_->events_after(0, limit);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
  }
}

TEST_P(EventJournalStore, ARunsLifeIsJournalledInOrderWithItsLoop) {
  const Loop loop = add_loop("nightly");
  const ClaimedRun run = claim(loop, kNow + kMinute);
  finish(run.claim, RunStatus::kSucceeded, kNow + 2000);
  const std::vector<JournalEvent> events = all_events(*store_);
  ASSERT_EQ(kinds(events),
            (std::vector<std::string>{"loop.created", "run.running", "run.succeeded"}));
  EXPECT_EQ(events[0].subject, loop.id);
  EXPECT_EQ(payload(events[0])["name"], "nightly");
  EXPECT_EQ(payload(events[0])["status"], "active");
  for (size_t i = 1; i < events.size(); ++i) {
    EXPECT_GT(events[i].id, events[i - 1].id);
    EXPECT_EQ(events[i].subject, run.run.id);
    EXPECT_EQ(payload(events[i])["run_id"], run.run.id);
    EXPECT_EQ(payload(events[i])["loop_id"], loop.id);
    EXPECT_EQ(payload(events[i])["loop_name"], "nightly");
    EXPECT_EQ(payload(events[i])["scheduled_for"], kNow + kMinute);
  }
  EXPECT_EQ(payload(events[2])["status"], "succeeded");
  EXPECT_EQ(events[2].at, kNow + 2000);
  EXPECT_EQ(ok_value(store_->last_event_id()), events.back().id);
}

TEST_P(EventJournalStore, ReadingResumesAfterAnIdAndHonoursTheLimit) {
  for (int i = 0; i < 5; ++i) add_loop("loop-" + std::to_string(i));
  const std::vector<JournalEvent> events = all_events(*store_);
  ASSERT_EQ(events.size(), 5u);
  for (int limit = 1; limit <= 6; ++limit) {
    std::vector<std::string> read;
    std::int64_t after = 0;
    for (int pages = 0; pages < 10; ++pages) {
      const std::vector<JournalEvent> page = ok_value(store_->events_after(after, limit));
      EXPECT_LE(int(page.size()), limit);
      if (page.empty()) break;
      for (const JournalEvent& event : page) read.push_back(event.subject);
      after = page.back().id;
    }
    std::vector<std::string> expected;
    for (const JournalEvent& event : events) expected.push_back(event.subject);
    EXPECT_EQ(read, expected) << "limit " << limit;
  }
  EXPECT_TRUE(all_events(*store_, events.back().id).empty());
}

TEST_P(EventJournalStore, AConfigurationChangeIsJournalledButAScheduleStepIsNot) {
  const Loop loop = add_loop("poll");
  const std::int64_t created = ok_value(store_->last_event_id());
  Loop stepped = *ok_value(store_->get_loop(loop.id));
  stepped.next_run_at = kNow + 2 * kMinute;
  ASSERT_TRUE(store_->update_loop_parts(stepped, {.state = true}, {}, kNow + 1).ok());
  EXPECT_TRUE(all_events(*store_, created).empty());
  Loop paused = *ok_value(store_->get_loop(loop.id));
  paused.status = LoopStatus::kPaused;
  ASSERT_TRUE(store_->update_loop_parts(paused, {.state = true}, {}, kNow + 2).ok());
  const std::vector<JournalEvent> events = all_events(*store_, created);
  ASSERT_EQ(kinds(events), std::vector<std::string>{"loop.changed"});
  EXPECT_EQ(payload(events[0])["status"], "paused");
  EXPECT_EQ(events[0].at, kNow + 2);
  ASSERT_TRUE(store_->delete_loop(loop.id).ok());
  EXPECT_EQ(kinds(all_events(*store_, events[0].id)), std::vector<std::string>{"loop.removed"});
}

TEST_P(EventJournalStore, TheDaemonLeaseIsJournalledWhenTakenAndGivenUpNotWhenRenewed) {
  auto lease = ok_value(store_->acquire_daemon_lease({100, 1}, 30'000, kNow));
  ASSERT_TRUE(lease.has_value());
  ASSERT_TRUE(store_->heartbeat_daemon_lease(lease->lease_id, 30'000, kNow + 1000).ok());
  ASSERT_TRUE(store_->release_daemon_lease(lease->lease_id, kNow + 2000).ok());
  auto again = ok_value(store_->acquire_daemon_lease({200, 2}, 30'000, kNow + 3000));
  ASSERT_TRUE(again.has_value());
  const std::vector<JournalEvent> events = all_events(*store_);
  ASSERT_EQ(kinds(events),
            (std::vector<std::string>{"lease.acquired", "lease.released", "lease.acquired"}));
  EXPECT_EQ(payload(events[0])["generation"], lease->generation);
  EXPECT_EQ(payload(events[2])["generation"], again->generation);
  for (const JournalEvent& event : events)
    EXPECT_FALSE(payload(event).contains("lease_id")) << event.payload_json;
}

TEST_P(EventJournalStore, AGoalsCreationBudgetAndStatusAreJournalled) {
  const Loop loop = add_loop("agent");
  Goal goal;
  goal.objective = "make it pass";
  goal.target.loop_id = loop.id;
  goal.token_budget = 1000;
  goal = ok_value(store_->create_goal(goal, kNow));
  const std::int64_t before = ok_value(store_->last_event_id());
  ok_value(store_->change_goal(
      goal.id, [](Goal g) { return change_budget(std::move(g), 5000, kNow + 1); }, kNow + 1));
  ok_value(store_->change_goal(
      goal.id, [](Goal g) { return cancel_goal(std::move(g), kNow + 2); }, kNow + 2));
  std::vector<std::string> goal_kinds;
  for (const JournalEvent& event : all_events(*store_, before))
    if (event.kind.rfind("goal.", 0) == 0) {
      goal_kinds.push_back(event.kind);
      EXPECT_EQ(event.subject, goal.id);
    }
  EXPECT_EQ(goal_kinds, (std::vector<std::string>{"goal.budget", "goal.cancelled"}));
}

// Writes `count` events straight into the journal, as the triggers do.
void journal_directly(const Backend& backend, Place& place, long count) {
  const std::string n = std::to_string(count);
  if (std::string(backend.name) == "postgres") {
    testing::pg_value(place.database->url(),
                      "SELECT count(orrery_journal(0, 'test.fill', 's', '{}'::json)) FROM "
                      "generate_series(1, " +
                          n + ")");
    return;
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(place.dir.file("orrery.db").c_str(), &db), SQLITE_OK);
  const std::string fill =
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " + n +
      ") INSERT INTO events (at, kind, subject, payload_json) SELECT 0, 'test.fill', 's', '{}' "
      "FROM n";
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, fill.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

TEST_P(EventJournalStore, TheJournalKeepsAboutTheLastHundredThousandEvents) {
  add_loop("first");
  journal_directly(GetParam(), place_, sql::kJournalKeep + 500);
  const Loop last = add_loop("last");
  const std::int64_t newest = ok_value(store_->last_event_id());
  EXPECT_EQ(newest, sql::kJournalKeep + 502);
  const std::vector<JournalEvent> oldest = ok_value(store_->events_after(0, 1));
  ASSERT_EQ(oldest.size(), 1u);
  const std::int64_t kept = newest - oldest[0].id + 1;
  EXPECT_GE(kept, sql::kJournalKeep);
  EXPECT_LE(kept, sql::kJournalKeep + 64);
  EXPECT_EQ(ok_value(store_->events_after(newest - 1, 10)).at(0).subject, last.id);
}

INSTANTIATE_TEST_SUITE_P(Backends, EventJournalStore, backends(), backend_name);

}  // namespace
}  // namespace orrery
