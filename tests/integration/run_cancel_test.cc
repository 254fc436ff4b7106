// Black-box tests of `orrery run cancel RUN [--reason TEXT]` (docs/cli.md): a
// queued run is cancelled at once, a running one started by `trigger` (no
// daemon) is stopped by this command signalling its supervisor, a finished one
// is a conflict left as it is, and a bad reason or run changes nothing.
//
// Synchronisation: the detached runs are waited for by bounded polling of
// `run show --json`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_fixture.h"

namespace orrery {
namespace {

using nlohmann::json;
using Args = std::vector<std::string>;

constexpr int kExitUsage = 2;
constexpr int kExitNotFound = 3;
constexpr int kExitConflict = 4;

class RunCancel : public CliFixture {
 protected:
  // A loop whose runs sleep, one running and one queued behind it.
  void start_running_and_queued() {
    add("slow", {"--every", "1h", "--overlap", "queue", "--", "sleep", "30"});
    running_ = trigger("slow");
    started(running_);
    queued_ = trigger("slow");
    ASSERT_EQ(show_run(queued_)["status"], "queued");
  }

  json cancel(const std::string& run, const Args& more = {}) const {
    Args args{"run", "cancel", run};
    args.insert(args.end(), more.begin(), more.end());
    return json_of(args);
  }

  std::string running_;
  std::string queued_;
};

TEST_F(RunCancel, AQueuedRunIsCancelledAtOnceWithTheReason) {
  start_running_and_queued();
  const json told = cancel(queued_, {"--reason", "not needed"});
  EXPECT_EQ(told["status"], "cancelled");
  EXPECT_EQ(told["requested"], false);
  const json run = show_run(queued_);
  EXPECT_EQ(run["status"], "cancelled");
  EXPECT_EQ(run["error"], "not needed");
  EXPECT_EQ(show_run(running_)["status"], "running");  // the other run is untouched
}

TEST_F(RunCancel, ARunningRunStartedByTriggerIsStoppedWithoutADaemon) {
  start_running_and_queued();
  const json told = cancel(running_);
  EXPECT_EQ(told["status"], "running");
  EXPECT_EQ(told["requested"], true);
  const json run = finished(running_);
  EXPECT_EQ(run["status"], "cancelled") << run.dump();
}

TEST_F(RunCancel, AFinishedRunIsAConflictAndIsLeftAsItIs) {
  add("quick", {"--every", "1h", "--", "true"});
  const std::string run_id = json_of({"trigger", "quick", "--wait"})["id"].get<std::string>();
  const json before = show_run(run_id);
  ASSERT_EQ(before["status"], "succeeded");
  const RunResult result = run({"run", "cancel", run_id});
  EXPECT_EQ(result.exit_code, kExitConflict) << result.err;
  EXPECT_TRUE(contains(result.err, "is succeeded already")) << result.err;
  EXPECT_EQ(show_run(run_id), before);
}

TEST_F(RunCancel, AnUnknownRunIsNotFound) {
  const RunResult result = run({"run", "cancel", "ffffffffffff"});
  EXPECT_EQ(result.exit_code, kExitNotFound) << result.err;
}

TEST_F(RunCancel, AReasonThatIsNotUtf8OrTooLongChangesNothing) {
  start_running_and_queued();
  const json before = show_run(queued_);
  const std::vector<std::string> reasons{std::string("\xff\xfe"), std::string("\xc3"),
                                         std::string(1001, 'r')};
  for (const std::string& reason : reasons) {
    const RunResult result = run({"run", "cancel", queued_, "--reason", reason});
    EXPECT_EQ(result.exit_code, kExitUsage) << result.err;
    EXPECT_TRUE(contains(result.err, "--reason")) << result.err;
    EXPECT_EQ(show_run(queued_), before);
  }
  // 1000 bytes is accepted.
  EXPECT_EQ(cancel(queued_, {"--reason", std::string(1000, 'r')})["status"], "cancelled");
}

}  // namespace
}  // namespace orrery
