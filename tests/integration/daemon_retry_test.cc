// Black-box scenarios of retries and usage limits under `orrery daemon`, in
// real time (docs/scheduling.md, "Retries"; docs/execution.md, usage
// limits):
// - a failed, timed-out slot is attempted again after the retry delay while
//   attempts remain, then stays as it ended;
// - exponential backoff waits a random delay in [base, base·2^(n-1)] (under
//   the cap) before attempt n+1, so the waits grow;
// - an agent that reports a provider limit puts its account in a cooldown
//   (shown by `status`) until the reset time it gave; the loops on that
//   account wait for its end and then run, with no attempt used.
// Each target appends "SLOT ATTEMPT START_MS" to a file, so the attempts are
// seen from the target's side.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "daemon_fixture.h"

namespace orrery {
namespace {

constexpr TimeMs kSecond = 1000;

class DaemonRetry : public DaemonFixture {
 protected:
  // The gaps between successive attempts, from one start to the next.
  static std::vector<TimeMs> gaps(const std::vector<Execution>& ran) {
    std::vector<TimeMs> result;
    for (size_t i = 1; i < ran.size(); ++i) result.push_back(ran[i].started - ran[i - 1].started);
    return result;
  }

  // Waits until the once loop is completed (its slot has no retry left).
  bool wait_completed(const std::string& name, milliseconds limit) const {
    return eventually([&] { return loop(name)["status"] == "completed"; }, limit,
                      milliseconds(100));
  }
};

TEST_F(DaemonRetry, AFailingSlotIsAttemptedUntilItsAttemptsAreUsedThenStaysAsItEnded) {
  struct Case {
    std::string name;
    Args options;
    std::string command;  // after the recording
    int attempts;         // executions expected
    std::string status;   // of the slot at the end
  };
  const std::vector<Case> cases = {
      {"fails", {"--max-attempts", "3", "--retry-delay", "1s"}, "exit 3", 3, "failed"},
      {"times-out",
       {"--max-attempts", "2", "--retry-delay", "1s", "--timeout", "1s"},
       "exec sleep 5",
       2,
       "timed_out"},
      {"recovers",
       {"--max-attempts", "3", "--retry-delay", "1s"},
       "[ \"$ORRERY_ATTEMPT\" -ge 2 ] || exit 1",
       2,
       "succeeded"},
      {"once-only", {}, "exit 4", 1, "failed"},
  };
  for (const Case& c : cases) {
    Args args{"--at", "+1s"};
    args.insert(args.end(), c.options.begin(), c.options.end());
    args.push_back("--shell");
    args.push_back(record_to(tmp_ + "/" + c.name) + "; " + c.command);
    add(c.name, args);
  }
  const size_t daemon = start_held_daemon();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_TRUE(wait_completed(c.name, milliseconds(12'000))) << runs(c.name).dump(1);
    const std::vector<Execution> ran = executions(tmp_ + "/" + c.name);
    ASSERT_EQ(ran.size(), size_t(c.attempts)) << testing::read_file(tmp_ + "/" + c.name);
    for (size_t i = 0; i < ran.size(); ++i) {
      EXPECT_EQ(ran[i].attempt, int(i) + 1);
      EXPECT_EQ(ran[i].slot, ran[0].slot);
    }
    for (const TimeMs gap : gaps(ran)) {
      EXPECT_GE(gap, kSecond) << "the retry delay was not waited";
      EXPECT_LT(gap, 4 * kSecond) << "the retry came late";
    }
    const json all = runs(c.name);
    ASSERT_EQ(all.size(), 1u) << all.dump(1);  // one row per slot, attempt counted on it
    EXPECT_EQ(all[0]["status"], c.status) << all.dump(1);
    EXPECT_EQ(all[0]["attempt"], c.attempts);
    EXPECT_TRUE(loop(c.name)["retry_scheduled_for"].is_null());
  }
  // Nothing more is attempted: the time for another retry passes.
  std::this_thread::sleep_for(milliseconds(1500));
  for (const Case& c : cases) {
    EXPECT_EQ(executions(tmp_ + "/" + c.name).size(), size_t(c.attempts)) << c.name;
  }
  EXPECT_EQ(stop_daemon(daemon), 0) << log_of(daemon);
}

TEST_F(DaemonRetry, ExponentialBackoffWaitsGrowWithinTheirBounds) {
  constexpr int kLoops = 5;
  constexpr int kAttempts = 4;
  for (int i = 0; i < kLoops; ++i) {
    const std::string name = "backoff-" + std::to_string(i);
    add(name,
        {"--at", "+1s", "--max-attempts", std::to_string(kAttempts), "--retry-delay", "1s",
         "--retry-backoff", "exponential", "--shell", record_to(tmp_ + "/" + name) + "; exit 1"});
  }
  const size_t daemon = start_held_daemon();
  // The waits before attempts 2, 3, 4 (after attempt n): at least the base,
  // at most base·2^(n-1) (plus the time it takes to start a run).
  TimeMs longest_first_wait = 0, longest_third_wait = 0;
  for (int i = 0; i < kLoops; ++i) {
    const std::string name = "backoff-" + std::to_string(i);
    SCOPED_TRACE(name);
    ASSERT_TRUE(wait_completed(name, milliseconds(14'000))) << runs(name).dump(1);
    const std::vector<Execution> ran = executions(tmp_ + "/" + name);
    ASSERT_EQ(ran.size(), size_t(kAttempts)) << testing::read_file(tmp_ + "/" + name);
    const std::vector<TimeMs> waits = gaps(ran);
    for (size_t n = 0; n < waits.size(); ++n) {
      EXPECT_GE(waits[n], kSecond) << "wait " << n + 1;
      EXPECT_LE(waits[n], (TimeMs(1) << n) * kSecond + 1500) << "wait " << n + 1;
    }
    longest_first_wait = std::max(longest_first_wait, waits[0]);
    longest_third_wait = std::max(longest_third_wait, waits[2]);
    EXPECT_EQ(runs(name)[0]["status"], "failed");
    EXPECT_EQ(runs(name)[0]["attempt"], kAttempts);
  }
  // The first wait is the base; the third is drawn from [1 s, 4 s]: the
  // longest of five is under 1.5 s with a chance of (1/6)^5.
  EXPECT_GT(longest_third_wait, longest_first_wait + 500)
      << "the waits do not grow: " << longest_first_wait << " ms, then " << longest_third_wait
      << " ms";
  EXPECT_EQ(stop_daemon(daemon), 0) << log_of(daemon);
}

// A fake `claude` on PATH: its first call reports a usage limit that resets
// in 6 s (long enough that "second", due 2 s after "first", falls due within
// it on a slow machine too); every later call succeeds. Loop "first" hits the limit; loop
// "second" (same account) falls due during the cooldown. Both wait for its
// end, then run; neither uses an attempt.
TEST_F(DaemonRetry, AUsageLimitDefersTheAccountsLoopsUntilTheResetWithNoAttemptUsed) {
  const std::string bin = tmp_ + "/bin";
  const std::string record = tmp_ + "/calls";
  std::filesystem::create_directory(bin);
  {
    std::ofstream script(bin + "/claude");
    script << "#!/bin/sh\ncat >/dev/null\n"
           << "echo \"$ORRERY_LOOP_NAME $ORRERY_ATTEMPT $(date +%s%3N)\" >> '" << record << "'\n"
           << "if mkdir '" << tmp_ << "/limited' 2>/dev/null; then\n"
           << "  echo 'Claude AI usage limit reached. Try again in 6 seconds.' >&2; exit 1\n"
           << "fi\n"
           << "echo '{\"type\":\"result\",\"result\":\"done\"}'\n";
  }
  ::chmod((bin + "/claude").c_str(), 0700);
  const std::string path = bin + ":/usr/bin:/bin";
  // The daemon first, so that it watches when the first slot falls due.
  const size_t daemon = start_held_daemon({}, {{"PATH", path}});
  add("first", {"--at", "+1s", "--env", "PATH=" + path, "--agent", "claude", "--prompt", "hi"});
  add("second", {"--at", "+3s", "--env", "PATH=" + path, "--agent", "claude", "--prompt", "hi"});

  // The limit is hit; `status` shows the account cooling down.
  json cooldown;
  ASSERT_TRUE(eventually([&] {
    const json state = status();
    if (!state.contains("cooldowns") || state["cooldowns"].empty()) return false;
    cooldown = state["cooldowns"][0];
    return true;
  })) << log_of(daemon);
  EXPECT_EQ(cooldown["account"], "claude") << cooldown.dump();
  const TimeMs until = ms_of(cooldown["until"]);
  const std::vector<Execution> before = executions(record);
  ASSERT_EQ(before.size(), 1u) << testing::read_file(record);
  EXPECT_EQ(before[0].slot, "first");
  EXPECT_GE(until, before[0].started + 6 * kSecond - 100);
  EXPECT_LE(until, before[0].started + 8 * kSecond);

  ASSERT_TRUE(eventually([&] {
    return loop("first")["status"] == "completed" && loop("second")["status"] == "completed";
  })) << runs().dump(1)
      << log_of(daemon);
  // Three calls: the limited one, then both loops after the reset.
  const std::vector<Execution> calls = executions(record);
  ASSERT_EQ(calls.size(), 3u) << testing::read_file(record);
  for (size_t i = 1; i < calls.size(); ++i) {
    EXPECT_GE(calls[i].started, until) << calls[i].slot << " ran during the cooldown";
    EXPECT_LT(calls[i].started, until + 3 * kSecond) << calls[i].slot << " waited too long";
    EXPECT_EQ(calls[i].attempt, 1) << calls[i].slot;
  }
  for (const std::string name : {"first", "second"}) {
    const json all = runs(name);
    ASSERT_EQ(all.size(), 1u) << all.dump(1);
    EXPECT_EQ(all[0]["status"], "succeeded") << all.dump(1);
    EXPECT_EQ(all[0]["attempt"], 1) << all.dump(1);
  }
  EXPECT_EQ(stop_daemon(daemon), 0) << log_of(daemon);
}

}  // namespace
}  // namespace orrery
