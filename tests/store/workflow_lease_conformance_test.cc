// The Store conformance suite, the engine lease of a workflow run and its
// driver's advances (docs/workflows.md, "One driver per run"): acquiring,
// heartbeats, release and expiry; a stale driver changes nothing; advances
// are guarded by each step's status and journal in order. Every backend
// must pass it.
#include "store/workflow_conformance.h"

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)

using EngineLease = WorkflowConformance;

int generation_of(const std::string& token) {
  EXPECT_EQ(token.substr(0, 1), "g") << token;
  return std::stoi(token.substr(1, token.find('-') - 1));
}

TEST_P(EngineLease, AcquiringStartsAPendingRun) {
  const WorkflowRun run = publish_steps({"a"});
  const EngineFence fence = drive(run, "drive@a:1", kNow + 10);
  EXPECT_EQ(fence.run_id, run.id);
  EXPECT_EQ(fence.driver, "drive@a:1");
  EXPECT_EQ(generation_of(fence.token), 1);
  const WorkflowRun after = run_now(run.id);
  EXPECT_EQ(after.status, WorkflowRunStatus::kRunning);
  EXPECT_EQ(after.started_at, kNow + 10);
  EXPECT_EQ(after.driver, "drive@a:1");
  EXPECT_EQ(after.driver_token, fence.token);
  EXPECT_EQ(after.driver_lease_expires_at, kNow + 10 + kLease);
}

TEST_P(EngineLease, ASecondDriverGetsNothingWhileTheLeaseIsLive) {
  const WorkflowRun run = publish_steps({"a"});
  const EngineFence first = drive(run);
  for (TimeMs at : {kNow, kNow + 1, kNow + kLease - 1}) {
    for (std::string driver : {"drive@b:2", "drive@a:1"}) {
      auto second = ok_value(store_->acquire_engine_lease(run.id, driver, kLease, at));
      EXPECT_FALSE(second.has_value()) << driver << " at " << at;
    }
  }
  const WorkflowRun after = run_now(run.id);
  EXPECT_EQ(after.driver_token, first.token);
  EXPECT_EQ(after.driver_lease_expires_at, kNow + kLease);
}

TEST_P(EngineLease, AfterExpiryAnotherDriverAcquiresAHigherGeneration) {
  const WorkflowRun run = publish_steps({"a"});
  const EngineFence first = drive(run);
  const EngineFence second = drive(run, "drive@b:2", kNow + kLease);
  EXPECT_EQ(generation_of(second.token), 2);
  const EngineFence third = drive(run, "drive@c:3", kNow + 3 * kLease);
  EXPECT_EQ(generation_of(third.token), 3);
  const WorkflowRun after = run_now(run.id);
  EXPECT_EQ(after.driver, "drive@c:3");
  EXPECT_EQ(after.started_at, kNow);  // of the first acquisition
  // The stale ones are lost.
  EXPECT_TRUE(is_lease_lost(store_->heartbeat_engine_lease(first, kLease, kNow + 3 * kLease)));
  EXPECT_TRUE(is_lease_lost(store_->heartbeat_engine_lease(second, kLease, kNow + 3 * kLease)));
}

TEST_P(EngineLease, AHeartbeatExtendsOnlyALiveLease) {
  const WorkflowRun run = publish_steps({"a"});
  const EngineFence fence = drive(run);
  for (TimeMs at : {kNow + 1000, kNow + kLease, kNow + 2 * kLease - 1}) {
    ASSERT_TRUE(store_->heartbeat_engine_lease(fence, kLease, at).ok()) << at;
    EXPECT_EQ(run_now(run.id).driver_lease_expires_at, at + kLease);
  }
  // Expired.
  const TimeMs expired = kNow + 3 * kLease - 1;
  EXPECT_TRUE(is_lease_lost(store_->heartbeat_engine_lease(fence, kLease, expired + kLease)));
  // Another driver's name or token.
  EngineFence wrong = fence;
  wrong.token = "g1-0000";
  EXPECT_TRUE(is_lease_lost(store_->heartbeat_engine_lease(wrong, kLease, kNow + kLease)));
  wrong = fence;
  wrong.driver = "drive@b:2";
  EXPECT_TRUE(is_lease_lost(store_->heartbeat_engine_lease(wrong, kLease, kNow + kLease)));
}

TEST_P(EngineLease, ReleasingLetsTheNextDriverAcquireAtOnce) {
  const WorkflowRun run = publish_steps({"a"});
  const EngineFence fence = drive(run);
  // Another's fence releases nothing.
  EngineFence wrong = fence;
  wrong.token = "g1-ffff";
  ASSERT_TRUE(store_->release_engine_lease(wrong).ok());
  EXPECT_FALSE(ok_value(store_->acquire_engine_lease(run.id, "drive@b:2", kLease, kNow + 1)));
  ASSERT_TRUE(store_->release_engine_lease(fence).ok());
  ASSERT_TRUE(store_->release_engine_lease(fence).ok());  // not held: no-op
  EXPECT_TRUE(is_lease_lost(store_->heartbeat_engine_lease(fence, kLease, kNow + 1)));
  const EngineFence next = drive(run, "drive@b:2", kNow + 2);
  EXPECT_EQ(generation_of(next.token), 2);
  EXPECT_EQ(run_now(run.id).status, WorkflowRunStatus::kRunning);
}

TEST_P(EngineLease, AFinishedRunIsAConflictAndAnUnknownOneNotFound) {
  const WorkflowRun run = publish_steps({"a"});
  const EngineFence fence = drive(run);
  WorkflowAdvance finish;
  finish.events = {{"run_cancelled", "", "{}"}};
  finish.finish = WorkflowRunStatus::kCancelled;
  ASSERT_TRUE(store_->advance_workflow_run(fence, finish, kNow + 1).ok());
  for (TimeMs at : {kNow + 2, kNow + 10 * kLease}) {
    EXPECT_TRUE(is_conflict(store_->acquire_engine_lease(run.id, "drive@b:2", kLease, at)));
  }
  EXPECT_TRUE(is_not_found(store_->acquire_engine_lease(next_id(), "drive@b:2", kLease, kNow)));
}

TEST_P(EngineLease, RunsWithoutDriverArePendingOrRunningWithNoLiveLeaseOldestFirst) {
  const WorkflowRun pending = publish_steps({"a"});
  const WorkflowRun driven = publish_steps({"a"});
  const WorkflowRun released = publish_steps({"a"});
  const WorkflowRun finished = publish_steps({"a"});
  const EngineFence driven_fence = drive(driven);
  ASSERT_TRUE(store_->release_engine_lease(drive(released)).ok());
  WorkflowAdvance finish;
  finish.events = {{"run_succeeded", "", "{}"}};
  finish.finish = WorkflowRunStatus::kSucceeded;
  ASSERT_TRUE(store_->advance_workflow_run(drive(finished), finish, kNow).ok());
  const auto ids = [&](TimeMs at, int limit) {
    std::vector<std::string> out;
    for (const WorkflowRun& run : ok_value(store_->workflow_runs_without_driver(at, limit))) {
      out.push_back(run.id);
    }
    return out;
  };
  EXPECT_EQ(ids(kNow + 1, 10), (std::vector<std::string>{pending.id, released.id}));
  EXPECT_EQ(ids(kNow + 1, 1), (std::vector<std::string>{pending.id}));
  // Once the driven run's lease expires it needs a driver too.
  EXPECT_EQ(ids(kNow + kLease, 10), (std::vector<std::string>{pending.id, driven.id, released.id}));
  ASSERT_TRUE(store_->heartbeat_engine_lease(driven_fence, kLease, kNow + kLease - 1).ok());
  EXPECT_EQ(ids(kNow + kLease, 10), (std::vector<std::string>{pending.id, released.id}));
}

TEST_P(EngineLease, AnAdvanceChangesStepsJournalsInOrderAndFinishesTheRunLast) {
  const WorkflowRun run = publish_steps({"a", "b:a", "c:a"});
  const EngineFence fence = drive(run);
  WorkflowAdvance first;
  first.steps = {
      {"a", StepStatus::kPending, StepStatus::kSucceeded, kNow + 5, 0, "", R"({"k":"v"})"},
      {"c", StepStatus::kPending, StepStatus::kSkipped, kNow + 5, std::nullopt,
       std::string("a dependency failed"), std::nullopt}};
  first.events = {{"step_succeeded", "a", "{}"}, {"step_skipped", "c", "{}"}};
  ASSERT_TRUE(store_->advance_workflow_run(fence, first, kNow + 5).ok());
  const StepRun a = step_now(run.id, "a");
  EXPECT_EQ(a.status, StepStatus::kSucceeded);
  EXPECT_EQ(a.finished_at, kNow + 5);
  EXPECT_EQ(a.exit_code, 0);
  EXPECT_EQ(a.outputs_json, R"({"k":"v"})");
  const StepRun c = step_now(run.id, "c");
  EXPECT_EQ(c.status, StepStatus::kSkipped);
  EXPECT_EQ(c.error, "a dependency failed");
  EXPECT_FALSE(c.exit_code.has_value());
  EXPECT_EQ(c.outputs_json, "{}");
  EXPECT_EQ(run_now(run.id).status, WorkflowRunStatus::kRunning);

  WorkflowAdvance last;
  last.steps = {{"b", StepStatus::kPending, StepStatus::kFailed, kNow + 9, 3, std::string("exit 3"),
                 std::nullopt}};
  last.events = {{"step_failed", "b", "{}"}, {"run_failed", "", "{}"}};
  last.finish = WorkflowRunStatus::kFailed;
  last.error = "step b failed";
  ASSERT_TRUE(store_->advance_workflow_run(fence, last, kNow + 9).ok());
  const WorkflowRun after = run_now(run.id);
  EXPECT_EQ(after.status, WorkflowRunStatus::kFailed);
  EXPECT_EQ(after.finished_at, kNow + 9);
  EXPECT_EQ(after.error, "step b failed");
  EXPECT_FALSE(after.driver_lease_expires_at.has_value());  // released
  EXPECT_EQ(event_types(run.id),
            (std::vector<std::string>{"created", "step_succeeded:a", "step_skipped:c",
                                      "step_failed:b", "run_failed"}));
  const auto journal = events(run.id);
  for (size_t i = 0; i < journal.size(); ++i) EXPECT_EQ(journal[i].sequence, std::int64_t(i + 1));
  // Finished: nothing more is written, not even by its driver.
  WorkflowAdvance more;
  more.events = {{"note", "", "{}"}};
  EXPECT_TRUE(is_conflict(store_->advance_workflow_run(fence, more, kNow + 10)));
  EXPECT_EQ(events(run.id).size(), 5u);
}

TEST_P(EngineLease, AStatusMismatchWritesNothingOfTheAdvance) {
  const WorkflowRun run = publish_steps({"a", "b"});
  const EngineFence fence = drive(run);
  for (StepStatus wrong_from :
       {StepStatus::kRunning, StepStatus::kSucceeded, StepStatus::kFailed}) {
    WorkflowAdvance advance;
    advance.steps = {
        {"a", StepStatus::kPending, StepStatus::kSucceeded, kNow, 0, std::nullopt, std::nullopt},
        {"b", wrong_from, StepStatus::kSucceeded, kNow, 0, std::nullopt, std::nullopt}};
    advance.events = {{"step_succeeded", "a", "{}"}, {"run_succeeded", "", "{}"}};
    advance.finish = WorkflowRunStatus::kSucceeded;
    EXPECT_TRUE(is_conflict(store_->advance_workflow_run(fence, advance, kNow + 1)));
    EXPECT_EQ(step_now(run.id, "a").status, StepStatus::kPending);
    EXPECT_EQ(run_now(run.id).status, WorkflowRunStatus::kRunning);
    EXPECT_EQ(event_types(run.id), (std::vector<std::string>{"created"}));
  }
  // An unknown step is a mismatch too.
  WorkflowAdvance unknown;
  unknown.steps = {
      {"zz", StepStatus::kPending, StepStatus::kSucceeded, kNow, 0, std::nullopt, std::nullopt}};
  EXPECT_TRUE(is_conflict(store_->advance_workflow_run(fence, unknown, kNow + 1)));
}

TEST_P(EngineLease, AStaleDriversAdvanceAndFinishChangeNothing) {
  const WorkflowRun run = publish_steps({"a"});
  const EngineFence stale = drive(run);
  const EngineFence current = drive(run, "drive@b:2", kNow + kLease);
  WorkflowAdvance advance;
  advance.steps = {
      {"a", StepStatus::kPending, StepStatus::kSucceeded, kNow, 0, std::nullopt, std::nullopt}};
  advance.events = {{"step_succeeded", "a", "{}"}, {"run_succeeded", "", "{}"}};
  advance.finish = WorkflowRunStatus::kSucceeded;
  for (TimeMs at : {kNow + kLease, kNow + kLease + 1}) {
    EXPECT_TRUE(is_lease_lost(store_->advance_workflow_run(stale, advance, at)));
  }
  // And an expired lease with no successor.
  EXPECT_TRUE(is_lease_lost(store_->advance_workflow_run(current, advance, kNow + 3 * kLease)));
  EXPECT_EQ(step_now(run.id, "a").status, StepStatus::kPending);
  EXPECT_EQ(run_now(run.id).status, WorkflowRunStatus::kRunning);
  EXPECT_EQ(run_now(run.id).driver, "drive@b:2");
  EXPECT_EQ(event_types(run.id), (std::vector<std::string>{"created"}));
  // The current driver, live, finishes it.
  ASSERT_TRUE(store_->heartbeat_engine_lease(current, kLease, kNow + kLease + 2).ok());
  ASSERT_TRUE(store_->advance_workflow_run(current, advance, kNow + kLease + 3).ok());
  EXPECT_EQ(run_now(run.id).status, WorkflowRunStatus::kSucceeded);
}

TEST_P(EngineLease, ARunCannotFinishAsPendingOrRunning) {
  const WorkflowRun run = publish_steps({"a"});
  const EngineFence fence = drive(run);
  for (WorkflowRunStatus status : {WorkflowRunStatus::kPending, WorkflowRunStatus::kRunning}) {
    WorkflowAdvance advance;
    advance.finish = status;
    const Status refused = store_->advance_workflow_run(fence, advance, kNow + 1);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
  }
  EXPECT_EQ(run_now(run.id).status, WorkflowRunStatus::kRunning);
}

INSTANTIATE_TEST_SUITE_P(Backends, EngineLease, backends(), backend_name);

}  // namespace
}  // namespace orrery
