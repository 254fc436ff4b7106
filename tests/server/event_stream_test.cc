// GET /v1/events (src/server/event_stream.h) over a real SQLite store: the
// frames, resuming after Last-Event-ID or `after`, a reset when the id is
// gone or unknown, heartbeats, the client cap, and every bad id refused.
#include "server/event_stream.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include "store/sqlite/sqlite_store.h"
#include "support/fake_probe.h"
#include "support/temp_dir.h"

namespace orrery::server {
namespace {

using namespace std::chrono_literals;

constexpr TimeMs kNow = 1'780'000'000'000;

class EventStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    hub_ = std::make_unique<EventHub>(open(), options_, real_clock());
    ASSERT_TRUE(hub_->start(/*pump_thread=*/false).ok());
  }

  std::unique_ptr<Store> open() {
    auto store = SqliteStore::open({dir_.file("orrery.db"), sqlite::Synchronous::kNormal, 5000,
                                    std::make_shared<testing::FakeProbe>(), kNow});
    EXPECT_TRUE(store.ok()) << (store ? "" : store.error().message);
    return store ? std::move(*store) : nullptr;
  }

  void add_loop(const std::string& name) {
    Loop loop;
    loop.id = "0123456789abcdef0123456789ab" + std::to_string(1000 + ++loops_);
    loop.name = name;
    loop.schedule.type = ScheduleType::kInterval;
    loop.schedule.every_ms = 60'000;
    loop.target.argv = {"/bin/true"};
    loop.next_run_at = kNow + 60'000;
    loop.created_at = loop.updated_at = kNow;
    ASSERT_TRUE(writer_->create_loop(loop).ok());
  }

  static HttpRequest request(std::map<std::string, std::string> headers = {},
                             std::map<std::string, std::string> query = {}) {
    HttpRequest r;
    r.method = "GET";
    r.path = "/v1/events";
    r.headers = std::move(headers);
    r.query = std::move(query);
    return r;
  }

  // The stream's text until `frames` frames (events or heartbeats) were written.
  std::string streamed(const HttpResponse& response, int frames) {
    std::string text;
    int written = 0;
    response.stream([&](std::string_view data) {
      text += data;
      return ++written <= frames;
    });
    return text;
  }

  testing::TempDir dir_;
  EventHubOptions options_;
  std::unique_ptr<Store> writer_ = open();
  std::unique_ptr<EventHub> hub_;
  EventStreamSettings settings_{1ms, 2000};
  int loops_ = 0;
};

TEST_F(EventStreamTest, AFrameHasTheIdTheKindAndOneLineOfJson) {
  JournalEvent event{42, kNow, "loop.created", "L1", R"({"name": "a\nb\u2028"})"};
  const std::string frame = sse_frame(event);
  ASSERT_EQ(frame.rfind("id: 42\nevent: loop.created\ndata: ", 0), 0u) << frame;
  ASSERT_EQ(frame.substr(frame.size() - 2), "\n\n");
  const std::string data = frame.substr(frame.find("data: ") + 6);
  EXPECT_EQ(data.find('\n'), data.size() - 2);  // no newline but the frame's end
  EXPECT_EQ(data.find('\r'), std::string::npos);
  const auto document = nlohmann::json::parse(data);
  EXPECT_EQ(document["id"], 42);
  EXPECT_EQ(document["at"], kNow);
  EXPECT_EQ(document["kind"], "loop.created");
  EXPECT_EQ(document["subject"], "L1");
  EXPECT_EQ(document["payload"]["name"], "a\nb\u2028");
}

TEST_F(EventStreamTest, NonUtf8InAPayloadIsReplacedNotSentRaw) {
  JournalEvent event{1, kNow, "loop.created", "L1", "{\"name\": \"\xff\xfe\"}"};
  const std::string frame = sse_frame(event);
  EXPECT_EQ(frame.find('\xff'), std::string::npos);
  const auto document =
      nlohmann::json::parse(frame.substr(frame.find("data: ") + 6), nullptr, false);
  EXPECT_FALSE(document.is_discarded()) << frame;
}

TEST_F(EventStreamTest, AStreamOpensWithRetryThenSendsNewEventsAndHeartbeats) {
  HttpResponse response = event_stream(*hub_, request(), settings_);
  ASSERT_EQ(response.status, 200);
  EXPECT_EQ(response.content_type, "text/event-stream");
  add_loop("first");
  ASSERT_TRUE(hub_->pump_once().ok());
  const std::string text = streamed(response, 2);
  EXPECT_EQ(text.rfind("retry: 2000\n\n", 0), 0u) << text;
  EXPECT_NE(text.find("event: loop.created\n"), std::string::npos) << text;
  EXPECT_NE(text.find(": heartbeat\n\n"), std::string::npos) << text;
}

TEST_F(EventStreamTest, AClientResumesAfterTheIdItNames) {
  for (const char* name : {"one", "two", "three"}) add_loop(name);
  ASSERT_TRUE(hub_->pump_once().ok());
  for (const auto& asked : {request({{"last-event-id", "1"}}), request({}, {{"after", "1"}})}) {
    const std::string text = streamed(event_stream(*hub_, asked, settings_), 1);
    EXPECT_EQ(text.find("id: 1\n"), std::string::npos) << text;
    EXPECT_NE(text.find("id: 2\n"), std::string::npos) << text;
    EXPECT_NE(text.find("id: 3\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("journal.reset"), std::string::npos) << text;
  }
  // The header wins over the parameter.
  const std::string text = streamed(
      event_stream(*hub_, request({{"last-event-id", "2"}}, {{"after", "0"}}), settings_), 1);
  EXPECT_EQ(text.find("id: 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("id: 3\n"), std::string::npos) << text;
}

TEST_F(EventStreamTest, AnIdTheJournalNoLongerOrNeverHeldStartsWithAReset) {
  for (const char* name : {"one", "two", "three", "four"}) add_loop(name);
  ASSERT_TRUE(hub_->pump_once().ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(dir_.file("orrery.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DELETE FROM events WHERE id <= 2", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  const std::string pruned =
      streamed(event_stream(*hub_, request({{"last-event-id", "1"}}), settings_), 1);
  EXPECT_NE(pruned.find("event: journal.reset\ndata: {\"after\":1,\"reason\":\"pruned\"}"),
            std::string::npos)
      << pruned;
  EXPECT_NE(pruned.find("id: 3\n"), std::string::npos) << pruned;
  const std::string unknown =
      streamed(event_stream(*hub_, request({{"last-event-id", "99"}}), settings_), 1);
  EXPECT_NE(unknown.find("\"reason\":\"unknown\""), std::string::npos) << unknown;
  EXPECT_EQ(unknown.find("id: 3\n"), std::string::npos) << unknown;
}

TEST_F(EventStreamTest, EveryIdThatIsNotAWholeNumberIsRefusedWith400) {
  for (const std::string bad : {"abc", "-1", "1.5", " 1", "1 ", "+1", "0x10", "1e3",
                                "9999999999999999999", "\xff", "1\n2"}) {
    for (const auto& asked : {request({{"last-event-id", bad}}), request({}, {{"after", bad}})}) {
      const HttpResponse response = event_stream(*hub_, asked, settings_);
      EXPECT_EQ(response.status, 400) << bad;
      EXPECT_FALSE(response.stream);
      const auto document = nlohmann::json::parse(response.body, nullptr, false);
      EXPECT_EQ(document["error"]["code"], "usage") << response.body;
      EXPECT_NE(document["error"]["message"].get<std::string>().find("expected the id"),
                std::string::npos)
          << response.body;
    }
  }
}

TEST_F(EventStreamTest, AClientOverTheCapIsRefusedWith429AndRetryAfter) {
  std::vector<HttpResponse> open_streams;
  for (int i = 0; i < options_.max_clients; ++i) {
    open_streams.push_back(event_stream(*hub_, request(), settings_));
    ASSERT_EQ(open_streams.back().status, 200);
  }
  HttpResponse refused = event_stream(*hub_, request(), settings_);
  EXPECT_EQ(refused.status, 429);
  EXPECT_FALSE(refused.stream);
  bool retry_after = false;
  for (const auto& [name, value] : refused.headers) retry_after |= name == "Retry-After";
  EXPECT_TRUE(retry_after);
  open_streams.pop_back();  // a client leaves
  EXPECT_EQ(event_stream(*hub_, request(), settings_).status, 200);
}

}  // namespace
}  // namespace orrery::server
