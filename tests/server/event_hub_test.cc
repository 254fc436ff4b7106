// EventHub (src/server/event_hub.h) over a real SQLite store: it delivers
// what was journalled after it started, in order; a client behind the ring
// reads from the journal; a gap is held, then skipped; clients are capped;
// stop() wakes every waiter.
#include "server/event_hub.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <thread>

#include "store/sqlite/sqlite_store.h"
#include "support/fake_clock.h"
#include "support/fake_probe.h"
#include "support/temp_dir.h"

namespace orrery::server {
namespace {

using namespace std::chrono_literals;

constexpr TimeMs kNow = 1'780'000'000'000;

class EventHubTest : public ::testing::Test {
 protected:
  std::unique_ptr<Store> open() {
    auto store = SqliteStore::open({dir_.file("orrery.db"), sqlite::Synchronous::kNormal, 5000,
                                    std::make_shared<testing::FakeProbe>(), kNow});
    EXPECT_TRUE(store.ok()) << (store ? "" : store.error().message);
    return store ? std::move(*store) : nullptr;
  }

  std::unique_ptr<EventHub> hub(EventHubOptions options = {}) {
    auto made = std::make_unique<EventHub>(open(), options, clock_);
    EXPECT_TRUE(made->start(/*pump_thread=*/false).ok());
    return made;
  }

  // Creates a loop (one journal event) through the writer's connection.
  void add_loop(const std::string& name) {
    Loop loop;
    loop.id = std::string(32 - name.size(), '0') + name;
    loop.name = name;
    loop.schedule.type = ScheduleType::kInterval;
    loop.schedule.every_ms = 60'000;
    loop.target.argv = {"/bin/true"};
    loop.next_run_at = kNow + 60'000;
    loop.created_at = loop.updated_at = kNow;
    ASSERT_TRUE(writer_->create_loop(loop).ok());
  }

  void sql(const std::string& statement) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(dir_.file("orrery.db").c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, statement.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
  }

  static std::vector<std::string> subjects(const EventBatch& batch) {
    std::vector<std::string> names;
    for (const JournalEvent& event : batch.events)
      names.push_back(event.subject.substr(event.subject.find_first_not_of('0')));
    return names;
  }

  testing::TempDir dir_;
  testing::FakeClock clock_{kNow};
  std::unique_ptr<Store> writer_ = open();
};

TEST_F(EventHubTest, ItDeliversWhatWasJournalledAfterItStartedInOrder) {
  add_loop("before");
  auto events = hub();
  const std::int64_t start = events->delivered();
  EXPECT_EQ(start, 1);
  ASSERT_TRUE(events->pump_once().ok());
  EXPECT_TRUE(events->wait_after(start, 0ms)->events.empty());
  for (const char* name : {"aaaaa1", "aaaaa2", "aaaaa3"}) add_loop(name);
  ASSERT_TRUE(events->pump_once().ok());
  const EventBatch batch = *events->wait_after(start, 0ms);
  EXPECT_EQ(subjects(batch), (std::vector<std::string>{"aaaaa1", "aaaaa2", "aaaaa3"}));
  EXPECT_EQ(subjects(*events->wait_after(batch.events[0].id, 0ms)),
            (std::vector<std::string>{"aaaaa2", "aaaaa3"}));
  EXPECT_FALSE(batch.stopped);
}

TEST_F(EventHubTest, AClientBehindTheRingReadsTheRestFromTheJournal) {
  add_loop("early1");
  add_loop("early2");
  EventHubOptions options;
  options.ring_capacity = 2;
  auto events = hub(options);
  for (const char* name : {"later1", "later2", "later3", "later4"}) add_loop(name);
  ASSERT_TRUE(events->pump_once().ok());
  // From before the hub started: the journal.
  EXPECT_EQ(subjects(*events->wait_after(0, 0ms)),
            (std::vector<std::string>{"early1", "early2", "later1", "later2", "later3", "later4"}));
  // Behind the ring, which holds the last two: the journal, up to what the hub delivered.
  EXPECT_EQ(subjects(*events->wait_after(3, 0ms)),
            (std::vector<std::string>{"later2", "later3", "later4"}));
  EXPECT_EQ(subjects(*events->wait_after(4, 0ms)), (std::vector<std::string>{"later3", "later4"}));
}

TEST_F(EventHubTest, AGapIsHeldForTheHoldThenSkipped) {
  EventHubOptions options;
  options.hold_ms = 5000;
  auto events = hub(options);
  for (const char* name : {"gapped1", "gapped2", "gapped3"}) add_loop(name);
  sql("DELETE FROM events WHERE id = 2");  // as a transaction that has not committed yet
  ASSERT_TRUE(events->pump_once().ok());
  EXPECT_EQ(subjects(*events->wait_after(0, 0ms)), std::vector<std::string>{"gapped1"});
  clock_.advance(4999);
  ASSERT_TRUE(events->pump_once().ok());
  EXPECT_EQ(events->delivered(), 1);
  clock_.advance(1);
  ASSERT_TRUE(events->pump_once().ok());
  EXPECT_EQ(events->delivered(), 3);
  EXPECT_EQ(subjects(*events->wait_after(1, 0ms)), std::vector<std::string>{"gapped3"});
}

TEST_F(EventHubTest, ClientsAreCappedAndALeavingClientMakesRoom) {
  EventHubOptions options;
  options.max_clients = 2;
  auto events = hub(options);
  EventHub::Membership first = events->join();
  EventHub::Membership second = events->join();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(events->join(), nullptr);
  EventHub::Membership copy = second;
  second.reset();
  EXPECT_EQ(events->join(), nullptr);  // a copy still holds the place
  copy.reset();
  EXPECT_NE(events->join(), nullptr);
}

TEST_F(EventHubTest, AWaiterIsWokenByThePumpAndByStop) {
  auto events = hub();
  EventBatch woken;
  std::thread waiter([&] { woken = *events->wait_after(0, 3600s); });
  add_loop("wakeup");
  ASSERT_TRUE(events->pump_once().ok());
  waiter.join();
  EXPECT_EQ(subjects(woken), std::vector<std::string>{"wakeup"});

  EventBatch stopped;
  std::thread stopping([&] { stopped = *events->wait_after(events->delivered(), 3600s); });
  events->stop();
  stopping.join();
  EXPECT_TRUE(stopped.stopped);
  EXPECT_TRUE(events->wait_after(0, 3600s)->stopped);
}

TEST_F(EventHubTest, ThePumpThreadDeliversWithoutBeingAsked) {
  auto events = std::make_unique<EventHub>(open(), EventHubOptions{}, real_clock());
  ASSERT_TRUE(events->start().ok());
  add_loop("pumped");
  EventBatch batch;
  while (batch.events.empty()) batch = *events->wait_after(0, 3600s);
  EXPECT_EQ(subjects(batch), std::vector<std::string>{"pumped"});
}

TEST_F(EventHubTest, TheJournalsBoundsAreItsOldestAndNewestIds) {
  auto events = hub();
  EXPECT_EQ(*events->journal_bounds(), (std::pair<std::int64_t, std::int64_t>{0, 0}));
  for (const char* name : {"bound1", "bound2", "bound3"}) add_loop(name);
  sql("DELETE FROM events WHERE id = 1");
  EXPECT_EQ(*events->journal_bounds(), (std::pair<std::int64_t, std::int64_t>{2, 3}));
}

}  // namespace
}  // namespace orrery::server
