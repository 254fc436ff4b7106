// The Store conformance suite, workflow runs (docs/workflows.md,
// "Storage"): atomic publication with its hooks, idempotency keys, reading
// and listing runs, steps and the journal, and cancel requests. Every
// backend must pass it.
#include "store/sql/sql_store.h"
#include "store/workflow_conformance.h"

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)

using WorkflowRuns = WorkflowConformance;

TEST_P(WorkflowRuns, PublishingWritesThePendingRunItsStepsAndTheCreatedEvent) {
  const Workflow workflow = add_workflow("build", {"a", "b:a", "c:b"});
  NewWorkflowRun published = new_run(workflow);
  published.run.id = next_id();
  published.run.loop_id = "loop-1";
  published.run.loop_run_id = "run-1";
  published.run.max_parallel = 7;
  const PublishedRun result = ok_value(store_->publish_workflow_run(published, {}, kNow + 5));
  EXPECT_FALSE(result.existed);
  const WorkflowRun& run = result.run;
  EXPECT_EQ(run.id, published.run.id);
  EXPECT_EQ(run.workflow_id, workflow.id);
  EXPECT_EQ(run.workflow_name, "build");
  EXPECT_EQ(run.workflow_version, 1);
  EXPECT_EQ(run.status, WorkflowRunStatus::kPending);
  EXPECT_EQ(run.input_json, R"({"x":"1"})");
  EXPECT_EQ(run.cwd, "/tmp");
  EXPECT_EQ(run.loop_id, "loop-1");
  EXPECT_EQ(run.loop_run_id, "run-1");
  EXPECT_EQ(run.max_parallel, 7);
  EXPECT_EQ(run.created_at, kNow + 5);
  EXPECT_FALSE(run.started_at.has_value());
  EXPECT_FALSE(run.finished_at.has_value());
  EXPECT_TRUE(run.driver.empty());
  EXPECT_FALSE(run.cancel_requested);

  const auto steps = ok_value(store_->list_step_runs(run.id));
  ASSERT_EQ(steps.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(steps[i].step_id, std::string(1, char('a' + i)));
    EXPECT_EQ(steps[i].sequence, i + 1);
    EXPECT_EQ(steps[i].status, StepStatus::kPending);
    EXPECT_EQ(steps[i].attempts, 0);
    EXPECT_EQ(steps[i].max_attempts, 1);
    EXPECT_EQ(steps[i].outputs_json, "{}");
  }
  const auto journal = events(run.id);
  ASSERT_EQ(journal.size(), 1u);
  EXPECT_EQ(journal[0].sequence, 1);
  EXPECT_EQ(journal[0].event_type, "created");
  EXPECT_EQ(journal[0].created_at, kNow + 5);
  EXPECT_TRUE(ok_value(store_->list_step_attempts(run.id)).empty());
}

TEST_P(WorkflowRuns, TheWorkflowsOwnNameAndVersionAreStored) {
  add_workflow("build");
  const Workflow second = add_workflow("build");
  NewWorkflowRun published = new_run(second);
  published.run.id = next_id();
  published.run.workflow_name = "something else";
  published.run.workflow_version = 9;
  const WorkflowRun run = ok_value(store_->publish_workflow_run(published, {}, kNow)).run;
  EXPECT_EQ(run.workflow_name, "build");
  EXPECT_EQ(run.workflow_version, 2);
}

TEST_P(WorkflowRuns, BadRunsAreRefusedAndNothingIsStored) {
  const Workflow workflow = add_workflow("build", {"a", "b"});
  std::vector<NewWorkflowRun> bad;
  bad.push_back(new_run(workflow));
  bad.back().run.workflow_id = next_id();  // no such workflow
  bad.push_back(new_run(workflow));
  bad.back().steps.clear();
  bad.push_back(new_run(workflow));
  bad.back().run.max_parallel = 0;
  bad.push_back(new_run(workflow));
  bad.back().run.max_parallel = kMaxParallelSteps + 1;
  bad.push_back(new_run(workflow));
  bad.back().steps[1].step_id = bad.back().steps[0].step_id;  // a duplicate step
  for (NewWorkflowRun& published : bad) {
    published.run.id = next_id();
    EXPECT_FALSE(store_->publish_workflow_run(published, {}, kNow).ok());
    EXPECT_FALSE(ok_value(store_->get_workflow_run(published.run.id)).has_value());
  }
  EXPECT_EQ(ok_value(store_->count_workflow_runs({})), 0);
}

TEST_P(WorkflowRuns, AnIdempotencyKeyReturnsTheRunPublishedBefore) {
  const Workflow workflow = add_workflow("build");
  const WorkflowRun first = publish(workflow, kNow, "key-1");
  for (int again = 0; again < 3; ++again) {
    NewWorkflowRun published = new_run(workflow, "key-1");
    published.run.id = next_id();
    bool hooked = false;
    PublishHooks hooks;
    hooks.before_commit = [&](const WorkflowRun&) -> Status {
      hooked = true;
      return Ok{};
    };
    const PublishedRun result = ok_value(store_->publish_workflow_run(published, hooks, kNow + 1));
    EXPECT_TRUE(result.existed);
    EXPECT_EQ(result.run.id, first.id);
    EXPECT_FALSE(hooked);
    EXPECT_FALSE(ok_value(store_->get_workflow_run(published.run.id)).has_value());
  }
  EXPECT_EQ(events(first.id).size(), 1u);
  // Another key, no key, or another workflow's name makes a new run.
  const Workflow other = add_workflow("other");
  for (const auto& [source, key] : std::vector<std::pair<Workflow, std::string>>{
           {workflow, "key-2"}, {workflow, ""}, {workflow, ""}, {other, "key-1"}}) {
    NewWorkflowRun published = new_run(source, key);
    published.run.id = next_id();
    const PublishedRun result = ok_value(store_->publish_workflow_run(published, {}, kNow));
    EXPECT_FALSE(result.existed) << key;
    EXPECT_EQ(result.run.id, published.run.id);
  }
  EXPECT_EQ(ok_value(store_->count_workflow_runs({})), 5);
}

TEST_P(WorkflowRuns, TheHookRunsBeforeCommitWithTheStoredRun) {
  const Workflow workflow = add_workflow("build");
  NewWorkflowRun published = new_run(workflow);
  published.run.id = next_id();
  std::optional<WorkflowRun> seen;
  bool rolled_back = false;
  PublishHooks hooks;
  hooks.before_commit = [&](const WorkflowRun& run) -> Status {
    seen = run;
    return Ok{};
  };
  hooks.after_rollback = [&](const WorkflowRun&) { rolled_back = true; };
  const WorkflowRun run = ok_value(store_->publish_workflow_run(published, hooks, kNow)).run;
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->id, run.id);
  EXPECT_EQ(seen->status, WorkflowRunStatus::kPending);
  EXPECT_FALSE(rolled_back);
}

TEST_P(WorkflowRuns, AHookErrorRollsEverythingBackWithoutCallingAfterRollback) {
  const Workflow workflow = add_workflow("build", {"a", "b"});
  for (ErrorCode code : {ErrorCode::kInternal, ErrorCode::kUnavailable, ErrorCode::kUsage}) {
    NewWorkflowRun published = new_run(workflow, "key");
    published.run.id = next_id();
    bool rolled_back = false;
    PublishHooks hooks;
    hooks.before_commit = [&](const WorkflowRun&) -> Status {
      return Error{code, "the manifest could not be written"};
    };
    hooks.after_rollback = [&](const WorkflowRun&) { rolled_back = true; };
    auto result = store_->publish_workflow_run(published, hooks, kNow);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, code);
    EXPECT_EQ(result.error().message, "the manifest could not be written");
    EXPECT_FALSE(rolled_back);
    EXPECT_FALSE(ok_value(store_->get_workflow_run(published.run.id)).has_value());
    EXPECT_TRUE(ok_value(store_->list_step_runs(published.run.id)).empty());
    EXPECT_TRUE(events(published.run.id).empty());
  }
  // The key was never taken.
  EXPECT_FALSE(ok_value(store_->publish_workflow_run(
                            [&] {
                              NewWorkflowRun published = new_run(workflow, "key");
                              published.run.id = next_id();
                              return published;
                            }(),
                            {}, kNow))
                   .existed);
}

// A commit that fails after the hook succeeded: the hook's before_commit
// leaves the transaction with a deferred foreign key that no row satisfies,
// so COMMIT itself is refused.
TEST_P(WorkflowRuns, ACommitThatFailsCallsAfterRollbackAndStoresNothing) {
  const Workflow workflow = add_workflow("build");
  NewWorkflowRun published = new_run(workflow);
  published.run.id = next_id();
  auto& db = dynamic_cast<SqlStore&>(*store_).connection();
  std::optional<WorkflowRun> removed;
  PublishHooks hooks;
  hooks.before_commit = [&](const WorkflowRun&) -> Status {
    return db.exec(
        "CREATE TEMPORARY TABLE doomed_parent (id INTEGER PRIMARY KEY); "
        "CREATE TEMPORARY TABLE doomed_child (parent INTEGER REFERENCES doomed_parent (id) "
        "DEFERRABLE INITIALLY DEFERRED); INSERT INTO doomed_child (parent) VALUES (1)");
  };
  hooks.after_rollback = [&](const WorkflowRun& run) { removed = run; };
  auto result = store_->publish_workflow_run(published, hooks, kNow);
  ASSERT_FALSE(result.ok());
  ASSERT_TRUE(removed.has_value());
  EXPECT_EQ(removed->id, published.run.id);
  EXPECT_FALSE(ok_value(store_->get_workflow_run(published.run.id)).has_value());
  EXPECT_TRUE(events(published.run.id).empty());
  // The store works on.
  EXPECT_FALSE(publish(workflow).id.empty());
}

TEST_P(WorkflowRuns, ResolvingARunTakesAnIdOrAPrefix) {
  const Workflow workflow = add_workflow("build");
  const WorkflowRun run = publish(workflow);
  EXPECT_EQ(ok_value(store_->resolve_workflow_run(run.id)).id, run.id);
  for (size_t length : {6, 12, 31}) {
    EXPECT_EQ(ok_value(store_->resolve_workflow_run(run.id.substr(0, length))).id, run.id);
  }
  const WorkflowRun second = publish(workflow);
  auto ambiguous = store_->resolve_workflow_run(run.id.substr(0, 12));
  ASSERT_TRUE(is_conflict(ambiguous));
  EXPECT_NE(ambiguous.error().message.find(second.id), std::string::npos);
  for (const std::string& text : {std::string("zzzzzzzz"), next_id(), std::string("build")}) {
    EXPECT_TRUE(is_not_found(store_->resolve_workflow_run(text))) << text;
  }
  for (const std::string& text : {std::string(""), run.id.substr(0, 5)}) {
    auto refused = store_->resolve_workflow_run(text);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage) << text;
  }
}

TEST_P(WorkflowRuns, ListingIsNewestFirstByNameAndStatusWithPages) {
  const Workflow build = add_workflow("build");
  const Workflow deploy = add_workflow("deploy");
  std::vector<std::string> builds;
  for (int i = 0; i < 5; ++i) {
    builds.insert(builds.begin(), publish(build, kNow + i * 10).id);
    publish(deploy, kNow + i * 10 + 1);
  }
  const auto ids = [](const std::vector<WorkflowRun>& runs) {
    std::vector<std::string> out;
    for (const WorkflowRun& run : runs) out.push_back(run.id);
    return out;
  };
  WorkflowRunFilter filter;
  filter.workflow_name = "build";
  EXPECT_EQ(ids(ok_value(store_->list_workflow_runs(filter))), builds);
  EXPECT_EQ(ok_value(store_->count_workflow_runs(filter)), 5);
  filter.limit = 2;
  filter.offset = 1;
  EXPECT_EQ(ids(ok_value(store_->list_workflow_runs(filter))),
            (std::vector<std::string>{builds[1], builds[2]}));
  filter = {};
  const auto all = ok_value(store_->list_workflow_runs(filter));
  ASSERT_EQ(all.size(), 10u);
  for (size_t i = 1; i < all.size(); ++i) EXPECT_GE(all[i - 1].created_at, all[i].created_at);
  // By status: one of the builds finished.
  const WorkflowRun newest = run_now(builds[0]);
  const EngineFence fence = drive(newest);
  WorkflowAdvance finish;
  finish.events = {{"run_failed", "", "{}"}};
  finish.finish = WorkflowRunStatus::kFailed;
  ASSERT_TRUE(store_->advance_workflow_run(fence, finish, kNow + 100).ok());
  filter.status = WorkflowRunStatus::kFailed;
  EXPECT_EQ(ids(ok_value(store_->list_workflow_runs(filter))),
            (std::vector<std::string>{builds[0]}));
  filter.status = WorkflowRunStatus::kPending;
  EXPECT_EQ(ok_value(store_->count_workflow_runs(filter)), 9);
  filter.workflow_name = "build";
  EXPECT_EQ(ok_value(store_->count_workflow_runs(filter)), 4);
  filter.workflow_name = "nothing";
  EXPECT_EQ(ok_value(store_->count_workflow_runs(filter)), 0);
}

TEST_P(WorkflowRuns, EventsAreReadAfterASequenceUpToALimit) {
  const WorkflowRun run = publish_steps({"a", "b"});
  const EngineFence fence = drive(run);
  WorkflowAdvance advance;
  for (int i = 0; i < 6; ++i)
    advance.events.push_back({"note", "a", "{\"i\":" + std::to_string(i) + "}"});
  ASSERT_TRUE(store_->advance_workflow_run(fence, advance, kNow + 1).ok());
  const auto all = events(run.id);
  ASSERT_EQ(all.size(), 7u);
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].sequence, std::int64_t(i + 1));
  EXPECT_EQ(all[3].payload_json, "{\"i\":2}");
  EXPECT_EQ(all[3].step_id, "a");
  const auto page = ok_value(store_->list_workflow_events(run.id, 2, 3));
  ASSERT_EQ(page.size(), 3u);
  EXPECT_EQ(page.front().sequence, 3);
  EXPECT_EQ(page.back().sequence, 5);
  EXPECT_TRUE(ok_value(store_->list_workflow_events(run.id, 7, 10)).empty());
  EXPECT_TRUE(ok_value(store_->list_workflow_events("nothing", 0, 10)).empty());
}

TEST_P(WorkflowRuns, ACancelRequestMarksAnUnfinishedRunOnly) {
  const WorkflowRun pending = publish_steps({"a"});
  WorkflowRun after = ok_value(store_->request_workflow_cancel(pending.id, kNow + 1));
  EXPECT_TRUE(after.cancel_requested);
  EXPECT_EQ(after.status, WorkflowRunStatus::kPending);
  EXPECT_TRUE(run_now(pending.id).cancel_requested);
  // Again: the same.
  EXPECT_TRUE(ok_value(store_->request_workflow_cancel(pending.id, kNow + 2)).cancel_requested);

  const WorkflowRun running = publish_steps({"a"});
  drive(running);
  EXPECT_TRUE(ok_value(store_->request_workflow_cancel(running.id, kNow + 1)).cancel_requested);

  const WorkflowRun finished = publish_steps({"a"});
  WorkflowAdvance finish;
  finish.events = {{"run_succeeded", "", "{}"}};
  finish.finish = WorkflowRunStatus::kSucceeded;
  ASSERT_TRUE(store_->advance_workflow_run(drive(finished), finish, kNow + 1).ok());
  after = ok_value(store_->request_workflow_cancel(finished.id, kNow + 2));
  EXPECT_FALSE(after.cancel_requested);
  EXPECT_EQ(after.status, WorkflowRunStatus::kSucceeded);

  EXPECT_TRUE(is_not_found(store_->request_workflow_cancel(next_id(), kNow)));
}

INSTANTIATE_TEST_SUITE_P(Backends, WorkflowRuns, backends(), backend_name);

}  // namespace
}  // namespace orrery
