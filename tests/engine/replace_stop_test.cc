#include "engine/replace_stop.h"

#include <gtest/gtest.h>

namespace orrery {
namespace {

const std::string kHost = "here";

orrery::Run run_with(RunStatus status, const std::string& host, bool supervisor,
                     std::optional<int> pgid) {
  orrery::Run run;
  run.id = "r1";
  run.status = status;
  run.host = host;
  if (supervisor) run.supervisor = ProcessIdentity{5001, 1'000};
  run.pgid = pgid;
  return run;
}

// Every combination of status, host, recorded supervisor (alive or not) and group.
TEST(ReplaceStop, EveryCombinationGetsTheWayItsStateAllows) {
  for (RunStatus status : {RunStatus::kPending, RunStatus::kRunning}) {
    for (const std::string& host : {kHost, std::string("elsewhere")}) {
      for (bool supervisor : {false, true}) {
        for (bool alive : {false, true}) {
          for (std::optional<int> pgid :
               {std::optional<int>{}, std::optional<int>{1}, std::optional<int>{6001}}) {
            const orrery::Run run = run_with(status, host, supervisor, pgid);
            const ReplaceStop how = how_to_stop_replaced(run, kHost, alive);
            const std::string what = std::string(run_status_name(status)) + " on " + host +
                                     (supervisor ? " with" : " without") + " supervisor" +
                                     (alive ? " alive" : "") + ", pgid " +
                                     (pgid ? std::to_string(*pgid) : "-");
            ReplaceStop expected = ReplaceStop::kNothing;
            if (status == RunStatus::kPending || host != kHost) {
              expected = ReplaceStop::kCancelInStore;
            } else if (supervisor && alive) {
              expected = ReplaceStop::kSignalSupervisor;
            } else if (pgid && *pgid > 1) {
              expected = ReplaceStop::kStopGroup;
            }
            EXPECT_EQ(how, expected) << what;
            // Never a signal for another host's run.
            if (host != kHost) {
              EXPECT_EQ(how, ReplaceStop::kCancelInStore) << what;
            }
          }
        }
      }
    }
  }
}

TEST(ReplaceStop, ARunWithoutAHostRecordedRunsHere) {
  const orrery::Run run = run_with(RunStatus::kRunning, "", true, 6001);
  EXPECT_EQ(how_to_stop_replaced(run, kHost, true), ReplaceStop::kSignalSupervisor);
  EXPECT_EQ(how_to_stop_replaced(run, kHost, false), ReplaceStop::kStopGroup);
}

}  // namespace
}  // namespace orrery
