// Black-box tests of `orrery trigger` while a run of the loop is running
// (docs/cli.md, "trigger"): the loop's overlap policy decides — skip refuses,
// queue holds one queued run, allow runs alongside, replace cancels the
// running run first — and --force runs regardless. Each test starts a
// sleeping target with trigger, then triggers again.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "cli_fixture.h"

namespace orrery {
namespace {

using nlohmann::json;

class TriggerOverlap : public CliFixture {
 protected:
  // A loop with the policy whose target sleeps, and its first run, running.
  std::string start_sleeper(const std::string& name, const std::string& policy) {
    add(name, {"--every", "1h", "--overlap", policy, "--shell", "sleep 30"});
    const std::string id = trigger(name);
    EXPECT_EQ(started(id)["status"], "running");
    return id;
  }

  json runs_of(const std::string& loop) const { return json_of({"runs", loop}); }

  std::size_t count(const json& runs, const std::string& status) const {
    std::size_t n = 0;
    for (const json& run : runs) n += run["status"] == status;
    return n;
  }
};

TEST_F(TriggerOverlap, SkipRefusesWhileARunIsInProgress) {
  const std::string first = start_sleeper("skipper", "skip");
  for (int attempt = 0; attempt < 2; ++attempt) {
    const std::string error = expect_error({"trigger", "skipper"}, 4);
    EXPECT_EQ(error,
              "orrery: loop skipper has a run in progress (" + first + "); --force runs anyway\n");
    const std::string waiting = expect_error({"trigger", "skipper", "--wait"}, 4);
    EXPECT_EQ(waiting, error);
  }
  EXPECT_EQ(runs_of("skipper").size(), 1u);
}

// The default policy is skip.
TEST_F(TriggerOverlap, TheDefaultPolicyIsSkip) {
  add("plain", {"--every", "1h", "--shell", "sleep 30"});
  const std::string first = trigger("plain");
  ASSERT_EQ(started(first)["status"], "running");
  const std::string error = expect_error({"trigger", "plain"}, 4);
  EXPECT_TRUE(contains(error, "has a run in progress (" + first + ")")) << error;
}

TEST_F(TriggerOverlap, ForceRunsWhateverThePolicy) {
  for (const std::string policy : {"skip", "queue", "replace"}) {
    const std::string first = start_sleeper("f-" + policy, policy);
    const std::string second = trigger("f-" + policy, {"--force"});
    EXPECT_NE(second, first);
    EXPECT_EQ(started(second)["status"], "running") << policy;
    EXPECT_EQ(show_run(first)["status"], "running") << policy;
    EXPECT_EQ(count(runs_of("f-" + policy), "running"), 2u) << policy;
  }
}

TEST_F(TriggerOverlap, AllowRunsAlongside) {
  const std::string first = start_sleeper("together", "allow");
  const std::string second = trigger("together");
  const std::string third = trigger("together");
  for (const std::string& id : {second, third}) EXPECT_EQ(started(id)["status"], "running");
  EXPECT_EQ(show_run(first)["status"], "running");
  EXPECT_EQ(count(runs_of("together"), "running"), 3u);
}

// replace: the running run is cancelled by its supervisor, then the new one runs.
TEST_F(TriggerOverlap, ReplaceCancelsTheRunningRun) {
  const std::string first = start_sleeper("replacer", "replace");
  const std::string second = trigger("replacer");
  EXPECT_NE(second, first);
  const json cancelled = finished(first);
  EXPECT_EQ(cancelled["status"], "cancelled") << cancelled.dump();
  EXPECT_EQ(started(second)["status"], "running");
  const std::string third = trigger("replacer");
  EXPECT_EQ(finished(second)["status"], "cancelled");
  EXPECT_EQ(started(third)["status"], "running");
  EXPECT_EQ(count(runs_of("replacer"), "running"), 1u);
  EXPECT_EQ(count(runs_of("replacer"), "cancelled"), 2u);
}

// queue: one queued run behind the running one; a second is refused.
TEST_F(TriggerOverlap, QueueHoldsOneQueuedRun) {
  const std::string first = start_sleeper("queuer", "queue");
  const RunResult queued = run({"trigger", "queuer"});
  ASSERT_EQ(queued.exit_code, 0) << queued.err;
  EXPECT_EQ(queued.err, "");
  ASSERT_EQ(lines(queued.out).size(), 1u) << queued.out;
  const std::string line = queued.out;
  ASSERT_EQ(line.rfind("queued ", 0), 0u) << line;
  const std::string id = line.substr(7, 32);
  EXPECT_EQ(line,
            "queued " + id + " behind " + first + " (the daemon starts it when that run ends)\n");
  const json row = show_run(id);
  EXPECT_EQ(row["status"], "queued") << row.dump();
  EXPECT_EQ(row["loop_name"], "queuer");
  EXPECT_TRUE(row["started_at"].is_null());
  const std::string again = expect_error({"trigger", "queuer"}, 4);
  EXPECT_EQ(again, "orrery: loop queuer already holds a queued run (" + id +
                       ") behind its run in progress (" + first + "); --force runs anyway\n");
  const json runs = runs_of("queuer");
  EXPECT_EQ(runs.size(), 2u);
  EXPECT_EQ(count(runs, "queued"), 1u);
  EXPECT_EQ(count(runs, "running"), 1u);
}

TEST_F(TriggerOverlap, QueueSaysSoInJson) {
  const std::string first = start_sleeper("queuer", "queue");
  const json doc = json_of({"trigger", "queuer"});
  EXPECT_EQ(doc["status"], "queued");
  EXPECT_EQ(doc["behind"], first);
  EXPECT_EQ(show_run(doc["run_id"].get<std::string>())["status"], "queued");
}

// Without a run in progress every policy runs at once.
TEST_F(TriggerOverlap, WithoutARunInProgressEveryPolicyRuns) {
  for (const std::string policy : {"skip", "queue", "allow", "replace"}) {
    add("idle-" + policy, {"--every", "1h", "--overlap", policy, "--", "true"});
    const json run = json_of({"trigger", "idle-" + policy, "--wait"});
    EXPECT_EQ(run["status"], "succeeded") << policy;
    EXPECT_EQ(json_of({"trigger", "idle-" + policy, "--wait"})["status"], "succeeded") << policy;
  }
}

// A queued run is the daemon's to start: when the running run ends, it runs.
TEST_F(TriggerOverlap, TheDaemonStartsTheQueuedRunWhenTheRunningOneEnds) {
  start_daemon();
  const std::string gate = tmp_ + "/gate";
  add("queuer", {"--every", "1h", "--overlap", "queue", "--shell",
                 "while [ ! -e '" + gate + "' ]; do sleep 0.02; done; echo \"$ORRERY_RUN_ID\""});
  const std::string first = trigger("queuer");
  ASSERT_EQ(started(first)["status"], "running");
  const json queued = json_of({"trigger", "queuer"});
  const std::string id = queued["run_id"].get<std::string>();
  EXPECT_EQ(show_run(id)["status"], "queued");
  std::ofstream(gate).put('\n');
  EXPECT_EQ(finished(first)["status"], "succeeded");
  const json second = finished(id);
  EXPECT_EQ(second["status"], "succeeded") << second.dump() << daemon_log();
  EXPECT_EQ(second["stdout"], id + "\n");
}

}  // namespace
}  // namespace orrery
