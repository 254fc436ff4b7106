// The Store conformance suite, a goal over a fleet (docs/goals.md, "A goal
// over a fleet"): every new run of a workflow is published under the
// workflow's active goal and counts towards it whatever the goal becomes;
// while the goal is stopped short of its end no new run is published, and
// the holds name it; a run that failed before any of its work started is
// recorded but spends no turn. Every backend must pass it.
#include "core/goal_edits.h"
#include "store/workflow_conformance.h"

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)

class GoalFleet : public WorkflowConformance {
 protected:
  Goal workflow_goal(const Workflow& workflow, std::int64_t budget) {
    Goal goal;
    goal.objective = "fix every reported bug";
    goal.target = {GoalTargetType::kWorkflow, "", workflow.id, workflow.name, ""};
    goal.token_budget = budget;
    return ok_value(store_->create_goal(goal, kNow));
  }

  Result<PublishedRun> try_publish(const Workflow& workflow, const std::string& key = "") {
    NewWorkflowRun published = new_run(workflow, key);
    published.run.id = next_id();
    return store_->publish_workflow_run(published, {}, kNow);
  }

  // Runs the run's one step "a" to its end with `tokens`, then finishes the run.
  void finish_with(const WorkflowRun& run, std::int64_t tokens) {
    const EngineFence fence = drive(run);
    const Reservation a = reserve(fence, run, "a", 1);
    RunOutcome outcome;
    outcome.status = RunStatus::kSucceeded;
    outcome.exit_code = 0;
    outcome.usage.output_tokens = tokens;
    ASSERT_TRUE(finalize_attempt(claim_of(a.attempt), outcome, "{}", kNow + 1).ok());
    WorkflowAdvance finish;
    finish.events = {{"run_succeeded", "", "{}"}};
    finish.finish = WorkflowRunStatus::kSucceeded;
    ASSERT_TRUE(store_->advance_workflow_run(fence, finish, kNow + 2).ok());
  }

  Goal goal_now(const Goal& goal) { return ok_value(store_->get_goal(goal.id)).value_or(Goal{}); }

  std::string hold_of(const std::string& workflow_name) {
    auto holds = ok_value(store_->workflow_goal_holds(kNow + 3));
    auto found = holds.find(workflow_name);
    return found == holds.end() ? "" : found->second;
  }
};

TEST_P(GoalFleet, RunsArePublishedUnderTheGoalAndCountTowardsItAfterItsBudgetIsSpent) {
  const Workflow workflow = add_workflow("fix");
  const Goal goal = workflow_goal(workflow, 100);
  const WorkflowRun first = publish(workflow);
  const WorkflowRun second = publish(workflow);
  EXPECT_EQ(first.goal_id, goal.id);
  EXPECT_EQ(second.goal_id, goal.id);
  finish_with(first, 60);
  EXPECT_EQ(goal_now(goal).status, GoalStatus::kActive);
  EXPECT_EQ(hold_of("fix"), "");
  // The second run was admitted under the goal: its tokens count although
  // they take the goal past its budget.
  finish_with(second, 70);
  const Goal spent = goal_now(goal);
  EXPECT_EQ(spent.status, GoalStatus::kBudgetLimited);
  EXPECT_EQ(spent.tokens_used, 130);
  EXPECT_EQ(spent.turns, 2);
  const std::string hold = "goal " + goal.id + " budget 130/100 tokens";
  EXPECT_EQ(hold_of("fix"), hold);
  const auto refused = try_publish(workflow);
  ASSERT_TRUE(is_conflict(refused));
  EXPECT_NE(refused.error().message.find(hold), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("orrery goal budget " + goal.id + " --add"),
            std::string::npos)
      << refused.error().message;
  // A raised budget lets runs go on, under the same goal.
  ok_value(store_->change_goal(
      goal.id, [](Goal g) { return change_budget(std::move(g), 1000, kNow); }, kNow + 4));
  EXPECT_EQ(hold_of("fix"), "");
  EXPECT_EQ(ok_value(try_publish(workflow)).run.goal_id, goal.id);
}

TEST_P(GoalFleet, ARunPublishedBeforeTheHoldIsFoundAgainByItsKeyAndItsStepsGetTheGoal) {
  const Workflow workflow = add_workflow("fix");
  const Goal goal = workflow_goal(workflow, 100);
  const WorkflowRun keyed = ok_value(try_publish(workflow, "item:1:1")).run;
  ok_value(store_->change_goal(
      goal.id, [](Goal g) { return pause_goal(std::move(g), kNow); }, kNow + 1));
  EXPECT_EQ(hold_of("fix"), "goal " + goal.id + " paused");
  // A daemon that died between publishing an item's run and starting it
  // finds that run again; only a new run is refused.
  const PublishedRun again = ok_value(try_publish(workflow, "item:1:1"));
  EXPECT_TRUE(again.existed);
  EXPECT_EQ(again.run.id, keyed.id);
  EXPECT_TRUE(is_conflict(try_publish(workflow, "item:2:1")));
  // A step of the run published under the goal is still given it.
  const Reservation a = reserve(drive(keyed), keyed, "a", 1);
  const auto given = ok_value(store_->goal_of_work(claim_of(a.attempt), kNow + 2));
  ASSERT_TRUE(given.has_value());
  EXPECT_EQ(given->id, goal.id);
}

TEST_P(GoalFleet, ACompleteOrReplacedGoalHoldsNothingAndItsRunsRunWithoutIt) {
  const Workflow workflow = add_workflow("fix");
  const Goal done = workflow_goal(workflow, 100);
  ok_value(store_->change_goal(
      done.id,
      [](Goal g) {
        g.status = GoalStatus::kComplete;
        return Result<Goal>(std::move(g));
      },
      kNow + 1));
  EXPECT_EQ(hold_of("fix"), "");
  EXPECT_EQ(ok_value(try_publish(workflow)).run.goal_id, "");
  // A new goal governs the target from its creation on.
  const Goal next = workflow_goal(workflow, 50);
  EXPECT_EQ(ok_value(try_publish(workflow)).run.goal_id, next.id);
  // Another workflow is not held by this one's goal.
  const Workflow other = add_workflow("other");
  ok_value(store_->change_goal(
      next.id, [](Goal g) { return pause_goal(std::move(g), kNow); }, kNow + 2));
  EXPECT_NE(hold_of("fix"), "");
  EXPECT_EQ(hold_of("other"), "");
  EXPECT_TRUE(try_publish(other).ok());
}

TEST_P(GoalFleet, ARunThatFailedBeforeAnyWorkStartedIsRecordedButSpendsNoTurn) {
  const Workflow workflow = add_workflow("fix");
  const Goal goal = workflow_goal(workflow, 100);
  const WorkflowRun run = publish(workflow);
  WorkflowAdvance finish;
  finish.events = {{"run_failed", "", "{}"}};
  finish.finish = WorkflowRunStatus::kFailed;
  finish.error = "the worktree could not be made";
  ASSERT_TRUE(store_->advance_workflow_run(drive(run), finish, kNow + 1).ok());
  const std::vector<GoalTurn> turns = ok_value(store_->list_turns(goal.id, 10));
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_FALSE(turns[0].spent);
  EXPECT_EQ(turns[0].workflow_run_id, run.id);
  EXPECT_NE(turns[0].summary.find("the worktree could not be made"), std::string::npos)
      << turns[0].summary;
  const Goal after = goal_now(goal);
  EXPECT_EQ(after.turns, 0);
  EXPECT_EQ(after.turns_without_progress, 0);
  EXPECT_EQ(after.status, GoalStatus::kActive);
}

INSTANTIATE_TEST_SUITE_P(Backends, GoalFleet, backends(), backend_name);

}  // namespace
}  // namespace orrery
