// `orrery serve` under a burst beside a working daemon (docs/server.md,
// "Listening"): 200 requests at once, each on its own connection, are all
// answered, and the daemon's loops keep their slots — the server has its own
// process and store connections, so it never holds up a tick. The loops allow
// overlap, so a run slowed by the burst's load (two cores under ASan) never
// makes the next slot a skip: every slot due while the burst lasted runs.
#include <algorithm>
#include <future>

#include "server_fixture.h"

namespace orrery {
namespace {

constexpr int kRequests = 200;
constexpr int kLoops = 3;

using TimeMs = std::int64_t;

TimeMs now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

TimeMs ms_of(const nlohmann::json& value) { return time_ms(value.get<std::string>()); }

bool in_flight(const nlohmann::json& run) {
  return run["status"] == "running" || run["status"] == "queued" || run["status"] == "pending";
}

class ServerLoad : public ServerFixture {
 protected:
  // The loop's runs, newest slot first (as `runs` lists them).
  json runs_of(const std::string& loop) const { return json_of({"runs", loop, "--limit", "1000"}); }
};

TEST_F(ServerLoad, TwoHundredRequestsAtOnceAreAllAnsweredAndEverySlotRuns) {
  for (int i = 0; i < kLoops; ++i)
    add("tick-" + std::to_string(i), {"--every", "1s", "--overlap", "allow", "--", "true"});
  for (int i = 0; i < 50; ++i) add("idle-" + std::to_string(i), {"--every", "1h", "--", "true"});
  start_daemon();
  ASSERT_TRUE(start_server()) << server_log();
  // The loops are running before the burst: each has a succeeded run (its
  // first slot may have been skipped while the daemon started).
  ASSERT_TRUE(eventually(
      [&] {
        for (int i = 0; i < kLoops; ++i) {
          bool succeeded = false;
          for (const json& run : runs_of("tick-" + std::to_string(i)))
            succeeded = succeeded || run["status"] == "succeeded";
          if (!succeeded) return false;
        }
        return true;
      },
      std::chrono::milliseconds(30'000)));

  const TimeMs burst_began = now_ms();
  const char* paths[] = {"/v1/loops", "/v1/runs?limit=100", "/v1/status", "/metrics",
                         "/v1/loops/tick-0"};
  std::vector<std::future<HttpReply>> replies;
  for (int i = 0; i < kRequests; ++i) {
    const std::string path = paths[i % std::size(paths)];
    replies.push_back(std::async(std::launch::async, [this, path] { return get(path); }));
  }
  int answered = 0;
  for (auto& reply : replies) {
    const HttpReply got = reply.get();
    EXPECT_EQ(got.status, 200) << told(got);
    answered += got.status == 200 ? 1 : 0;
  }
  EXPECT_EQ(answered, kRequests);
  const TimeMs burst_ended = now_ms();

  // Every slot due while the burst lasted, and the one after it, ran to its
  // end: one succeeded run a slot, one second apart, none skipped.
  const auto in_burst = [&](const json& run) {
    const TimeMs slot = ms_of(run["scheduled_for"]);
    return slot >= burst_began - 1000 && slot <= burst_ended + 1000;
  };
  ASSERT_TRUE(eventually(
      [&] {
        for (int i = 0; i < kLoops; ++i) {
          const json all = runs_of("tick-" + std::to_string(i));
          if (all.empty() || ms_of(all.front()["scheduled_for"]) <= burst_ended + 1000)
            return false;
          for (const json& run : all)
            if (in_burst(run) && in_flight(run)) return false;
        }
        return true;
      },
      std::chrono::milliseconds(30'000)));
  for (int i = 0; i < kLoops; ++i) {
    std::vector<TimeMs> slots;
    for (const json& run : runs_of("tick-" + std::to_string(i))) {
      if (!in_burst(run)) continue;
      EXPECT_EQ(run["status"], "succeeded") << run.dump();
      slots.push_back(ms_of(run["scheduled_for"]));
    }
    ASSERT_FALSE(slots.empty()) << "tick-" << i;
    std::sort(slots.begin(), slots.end());
    for (std::size_t k = 1; k < slots.size(); ++k)
      EXPECT_EQ(slots[k] - slots[k - 1], 1000) << "tick-" << i << ": a slot has no run";
    EXPECT_GE(slots.back() - slots.front(), burst_ended - burst_began)
        << "tick-" << i << ": the slots due during the burst are not all there";
  }
}

}  // namespace
}  // namespace orrery
