// Black-box tests of GET /v1/events, the live event stream of `orrery serve`
// (docs/server.md, "Live events"): a client sees a run start and finish, one
// that reconnects with Last-Event-ID gets what it missed, clients over the
// limit are refused, and stopping the server ends every stream.
#include <condition_variable>
#include <future>
#include <mutex>
#include <sstream>

#include "server_fixture.h"

namespace orrery {
namespace {

using json = nlohmann::json;

struct Frame {
  std::int64_t id = 0;
  std::string event;
  json data;
};

// Reads server-sent events: frames complete so far, and what is left over.
class FrameReader {
 public:
  // Adds a piece received; returns the frames it completed.
  std::vector<Frame> add(const std::string& piece) {
    pending_ += piece;
    std::vector<Frame> frames;
    for (size_t end = pending_.find("\n\n"); end != std::string::npos;
         end = pending_.find("\n\n")) {
      const std::string block = pending_.substr(0, end);
      pending_.erase(0, end + 2);
      Frame frame;
      std::istringstream lines(block);
      for (std::string line; std::getline(lines, line);) {
        if (line.rfind("id: ", 0) == 0) frame.id = std::stoll(line.substr(4));
        if (line.rfind("event: ", 0) == 0) frame.event = line.substr(7);
        if (line.rfind("data: ", 0) == 0) frame.data = json::parse(line.substr(6));
      }
      if (!frame.event.empty()) frames.push_back(std::move(frame));
    }
    return frames;
  }

 private:
  std::string pending_;
};

class ServerEvents : public ServerFixture {
 protected:
  // Streams /v1/events on a thread of its own, keeping every frame, until
  // `done` holds for the frames so far or the stream ends; `opened` is set
  // once the server has answered (the stream starts from there).
  std::future<std::vector<Frame>> stream(HttpHeaders headers,
                                         std::function<bool(const std::vector<Frame>&)> done,
                                         std::promise<void>* opened = nullptr) {
    return std::async(std::launch::async, [this, headers, done, opened] {
      FrameReader reader;
      std::vector<Frame> frames;
      bool told = false;
      http_stream(port_, "/v1/events", headers, [&](const std::string& piece) {
        if (!told && opened != nullptr) opened->set_value();
        told = true;
        for (Frame& frame : reader.add(piece)) frames.push_back(std::move(frame));
        return !done(frames);
      });
      if (!told && opened != nullptr) opened->set_value();
      return frames;
    });
  }

  static bool has(const std::vector<Frame>& frames, const std::string& event,
                  const std::string& subject) {
    for (const Frame& frame : frames)
      if (frame.event == event && frame.data["subject"] == subject) return true;
    return false;
  }
};

TEST_F(ServerEvents, AClientSeesARunStartAndFinish) {
  ASSERT_TRUE(start_server()) << server_log();
  add("hello", {"--every", "1h", "--", "/bin/echo", "hi"});
  std::promise<void> opened;
  std::future<void> is_open = opened.get_future();
  std::string run_id;
  std::mutex mutex;
  auto frames = stream(
      {},
      [&](const std::vector<Frame>& so_far) {
        std::lock_guard lock(mutex);
        return !run_id.empty() && has(so_far, "run.succeeded", run_id);
      },
      &opened);
  is_open.wait();
  {
    std::lock_guard lock(mutex);
    run_id = trigger("hello");
  }
  ASSERT_EQ(frames.wait_for(std::chrono::seconds(30)), std::future_status::ready) << server_log();
  const std::vector<Frame> seen = frames.get();
  ASSERT_TRUE(has(seen, "run.running", run_id));
  ASSERT_TRUE(has(seen, "run.succeeded", run_id));
  std::int64_t last = 0;
  for (const Frame& frame : seen) {
    EXPECT_GT(frame.id, last) << "ids out of order";
    last = frame.id;
    EXPECT_EQ(frame.data["id"], frame.id);
    EXPECT_EQ(frame.data["kind"], frame.event);
    if (frame.data["subject"] == run_id) {
      EXPECT_EQ(frame.data["payload"]["loop_name"], "hello");
      EXPECT_EQ(frame.data["payload"]["run_id"], run_id);
    }
  }
}

TEST_F(ServerEvents, AClientThatReconnectsWithLastEventIdGetsWhatItMissed) {
  ASSERT_TRUE(start_server()) << server_log();
  add("first", {"--every", "1h", "--", "true"});
  add("second", {"--every", "1h", "--", "true"});
  // The first connection reads from the start and ends once the loops were created.
  auto until_created = stream({{"Last-Event-ID", "0"}},
                              [](const std::vector<Frame>& so_far) { return so_far.size() >= 2; });
  const std::vector<Frame> created = until_created.get();
  ASSERT_EQ(created.size(), 2u);
  EXPECT_EQ(created[0].event, "loop.created");
  EXPECT_EQ(created[0].data["payload"]["name"], "first");
  EXPECT_EQ(created[1].data["payload"]["name"], "second");
  // While no client is connected, two runs start and finish.
  const std::string one = trigger("first");
  const std::string two = trigger("second");
  for (const std::string& id : {one, two})
    poll_run(id, [](const json& run) { return run["status"] == "succeeded"; });
  auto resumed =
      stream({{"Last-Event-ID", std::to_string(created.back().id)}},
             [&](const std::vector<Frame>& so_far) {
               return has(so_far, "run.succeeded", one) && has(so_far, "run.succeeded", two);
             });
  ASSERT_EQ(resumed.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  const std::vector<Frame> missed = resumed.get();
  ASSERT_FALSE(missed.empty());
  EXPECT_GT(missed.front().id, created.back().id);
  EXPECT_FALSE(has(missed, "loop.created", created.back().data["subject"]));
  EXPECT_TRUE(has(missed, "run.running", one));
  EXPECT_TRUE(has(missed, "run.running", two));
  // A client that names an id the journal never held is told to start afresh.
  auto unknown = stream({{"Last-Event-ID", "999999"}},
                        [](const std::vector<Frame>& so_far) { return !so_far.empty(); });
  const std::vector<Frame> reset = unknown.get();
  ASSERT_FALSE(reset.empty());
  EXPECT_EQ(reset.front().event, "journal.reset");
  EXPECT_EQ(reset.front().data["reason"], "unknown");
}

TEST_F(ServerEvents, ClientsOverHalfTheThreadsAreRefusedAndStoppingEndsEveryStream) {
  ASSERT_TRUE(start_server({"--threads", "4"})) << server_log();
  std::vector<std::promise<void>> opened(2);
  std::vector<std::future<std::vector<Frame>>> streams;
  for (auto& promise : opened) {
    streams.push_back(stream(
        {}, [](const std::vector<Frame>&) { return false; }, &promise));
    promise.get_future().wait();
  }
  const HttpReply refused = get("/v1/events");
  EXPECT_EQ(refused.status, 429) << told(refused);
  EXPECT_EQ(error_code(refused), "too_many_clients");
  EXPECT_FALSE(refused.header("Retry-After").empty());
  EXPECT_EQ(get("/v1/status").status, 200);  // the other threads still answer
  EXPECT_EQ(stop_server(), 0) << server_log();
  for (auto& running : streams)
    EXPECT_EQ(running.wait_for(std::chrono::seconds(10)), std::future_status::ready);
}

TEST_F(ServerEvents, ABadLastEventIdIsRefused) {
  ASSERT_TRUE(start_server()) << server_log();
  for (const char* bad : {"x", "-5", "1.0", "18446744073709551616"}) {
    const HttpReply refused = get("/v1/events", {{"Last-Event-ID", bad}});
    EXPECT_EQ(refused.status, 400) << bad << ": " << told(refused);
    EXPECT_EQ(error_code(refused), "usage");
  }
  EXPECT_EQ(get("/v1/events?after=nope").status, 400);
}

}  // namespace
}  // namespace orrery
