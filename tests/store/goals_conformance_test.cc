// The Store conformance suite, goals (store/goal_book.h, docs/goals.md): one
// open goal per target, reading and resolving goals, changes under the row
// lock with what they do to the loop, and a turn counted in the finish of the
// work that was it — once, whichever way the work ended. Every backend must
// pass it.
#include "core/goal_edits.h"
#include "core/goal_plan.h"
#include "store/workflow_conformance.h"

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)

using GoalsStore = WorkflowConformance;

PlanNode node(const std::string& key, std::vector<std::string> depends_on = {}) {
  PlanNode made;
  made.key = key;
  made.objective = "do " + key;
  made.depends_on = std::move(depends_on);
  return made;
}

Goal loop_goal(const Loop& loop, std::optional<std::int64_t> budget = 1000) {
  Goal goal;
  goal.objective = "  make the tests pass  ";
  goal.target.type = GoalTargetType::kLoop;
  goal.target.loop_id = loop.id;
  goal.token_budget = budget;
  goal.plan = {node("a"), node("b", {"a"}), node("c", {"b"})};
  for (size_t i = 0; i < goal.plan.size(); ++i) goal.plan[i].sequence = std::int64_t(i);
  return goal;
}

RunOutcome turn_outcome(const Goal& goal, std::int64_t tokens, const std::string& update) {
  RunOutcome outcome;
  outcome.status = RunStatus::kSucceeded;
  outcome.usage.input_tokens = tokens / 2;
  outcome.usage.output_tokens = tokens - tokens / 2;
  outcome.goal_id = goal.id;
  outcome.goal_node = "a";
  if (!update.empty()) outcome.goal_update = update;
  return outcome;
}

TEST_P(GoalsStore, AGoalIsStoredTrimmedWithItsPlanAndReadBackWhole) {
  const Loop loop = add_loop("agent");
  const Goal created = ok_value(store_->create_goal(loop_goal(loop), kNow));
  EXPECT_EQ(created.id.size(), 32u);
  EXPECT_EQ(created.objective, "make the tests pass");
  const Goal read = ok_value(store_->get_goal(created.id)).value_or(Goal{});
  EXPECT_EQ(read.id, created.id);
  EXPECT_EQ(read.objective, "make the tests pass");
  EXPECT_EQ(read.status, GoalStatus::kActive);
  EXPECT_EQ(read.target, created.target);
  EXPECT_EQ(read.token_budget, 1000);
  EXPECT_EQ(read.plan, created.plan);
  EXPECT_EQ(read.created_at, kNow);
  EXPECT_EQ(ok_value(store_->resolve_goal(created.id.substr(0, 10))).id, created.id);
  EXPECT_EQ(store_->resolve_goal("ffffffffffff").error().code, ErrorCode::kNotFound);
  EXPECT_EQ(store_->resolve_goal("abc").error().code, ErrorCode::kUsage);
  EXPECT_EQ(ok_value(store_->list_goals({})).size(), 1u);
  GoalFilter other_loop;
  other_loop.loop_id = "nothing";
  EXPECT_TRUE(ok_value(store_->list_goals(other_loop)).empty());
  // Counts follow the filter and ignore the page.
  GoalFilter past_the_page;
  past_the_page.offset = 5;
  EXPECT_EQ(ok_value(store_->count_goals(past_the_page)), 1);
  EXPECT_EQ(ok_value(store_->count_goals(other_loop)), 0);
  GoalFilter paused;
  paused.status = GoalStatus::kPaused;
  EXPECT_EQ(ok_value(store_->count_goals(paused)), 0);
  EXPECT_EQ(ok_value(store_->count_turns(created.id)), 0);
}

TEST_P(GoalsStore, ATargetHasOneOpenGoalAndANewOneOnceTheFirstIsFinal) {
  const Loop loop = add_loop("agent");
  const Goal first = ok_value(store_->create_goal(loop_goal(loop), kNow));
  auto second = store_->create_goal(loop_goal(loop), kNow + 1);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, ErrorCode::kConflict);
  EXPECT_NE(second.error().message.find(first.id), std::string::npos) << second.error().message;
  EXPECT_EQ(ok_value(store_->list_goals({})).size(), 1u);  // nothing stored
  ok_value(store_->change_goal(
      first.id, [](Goal goal) { return cancel_goal(std::move(goal), kNow + 2); }, kNow + 2));
  EXPECT_TRUE(store_->create_goal(loop_goal(loop), kNow + 3).ok());
}

TEST_P(GoalsStore, AGoalOfAMissingTargetOrWithABadObjectiveIsRefusedAndNothingStored) {
  Loop ghost = make_loop("ghost");
  EXPECT_EQ(store_->create_goal(loop_goal(ghost), kNow).error().code, ErrorCode::kNotFound);
  const Loop loop = add_loop("agent");
  for (const std::string& objective : {std::string(""), std::string("   "), std::string(4001, 'x'),
                                       std::string("bad \xff byte")}) {
    Goal goal = loop_goal(loop);
    goal.objective = objective;
    EXPECT_EQ(store_->create_goal(goal, kNow).error().code, ErrorCode::kUsage) << objective.size();
  }
  EXPECT_TRUE(ok_value(store_->list_goals({})).empty());
}

TEST_P(GoalsStore, AFinishedRunIsATurnOnceWithItsTokensOnTheGoalAndTheNode) {
  const Loop loop = add_loop("agent");
  const Goal goal = ok_value(store_->create_goal(loop_goal(loop), kNow));
  const ClaimedRun run = claim(loop, kNow + kMinute);
  const std::string update =
      R"({"goal": {"node": "a", "node_status": "complete", "evidence": {"tests": 3}}})";
  ASSERT_TRUE(store_->finish_claim(run.claim, turn_outcome(goal, 300, update), kNow + 2000).ok());
  // The claim is finished: a second finish is refused and counts nothing.
  EXPECT_FALSE(store_->finish_claim(run.claim, turn_outcome(goal, 300, update), kNow + 3000).ok());
  const Goal after = ok_value(store_->get_goal(goal.id)).value_or(Goal{});
  EXPECT_EQ(after.tokens_used, 300);
  EXPECT_EQ(after.turns, 1);
  EXPECT_EQ(find_node(after.plan, "a")->status, NodeStatus::kComplete);
  EXPECT_EQ(find_node(after.plan, "a")->tokens_used, 300);
  EXPECT_EQ(ready_keys(after.plan), std::vector<std::string>{"b"});
  const std::vector<GoalTurn> turns = ok_value(store_->list_turns(goal.id, 10));
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_EQ(ok_value(store_->count_turns(goal.id)), 1);
  EXPECT_EQ(turns[0].turn, 1);
  EXPECT_EQ(turns[0].loop_run_id, run.run.id);
  EXPECT_EQ(turns[0].node_key, "a");
  EXPECT_EQ(turns[0].tokens_used, 300);
  EXPECT_EQ(turns[0].evidence_json, R"({"tests":3})");
  EXPECT_EQ(turns[0].update_json, update);
  EXPECT_TRUE(turns[0].spent);
}

TEST_P(GoalsStore, AnInvalidUpdateIsRecordedOnTheTurnAndThePlanKept) {
  const Loop loop = add_loop("agent");
  const Goal goal = ok_value(store_->create_goal(loop_goal(loop), kNow));
  const ClaimedRun run = claim(loop, kNow + kMinute);
  const std::string cycle =
      R"({"goal": {"plan": [{"key": "x", "objective": "x", "depends_on": ["y"]},)"
      R"( {"key": "y", "objective": "y", "depends_on": ["x"]}]}})";
  ASSERT_TRUE(store_->finish_claim(run.claim, turn_outcome(goal, 10, cycle), kNow + 2000).ok());
  const Goal after = ok_value(store_->get_goal(goal.id)).value_or(Goal{});
  EXPECT_EQ(after.plan.size(), 3u);
  EXPECT_EQ(after.plan[0].key, "a");
  const std::vector<GoalTurn> turns = ok_value(store_->list_turns(goal.id, 10));
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_NE(turns[0].update_error.find("cycle"), std::string::npos) << turns[0].update_error;
  EXPECT_EQ(after.last_update_error, turns[0].update_error);
}

TEST_P(GoalsStore, TheBudgetReachedPausesTheLoopAndARaisedBudgetResumesIt) {
  const Loop loop = add_loop("agent");
  const Goal goal = ok_value(store_->create_goal(loop_goal(loop, 500), kNow));
  const ClaimedRun run = claim(loop, kNow + kMinute);
  ASSERT_TRUE(store_->finish_claim(run.claim, turn_outcome(goal, 600, ""), kNow + 2000).ok());
  const Goal limited = ok_value(store_->get_goal(goal.id)).value_or(Goal{});
  EXPECT_EQ(limited.status, GoalStatus::kBudgetLimited);
  const Loop paused = ok_value(store_->get_loop(loop.id)).value_or(Loop{});
  EXPECT_EQ(paused.status, LoopStatus::kPaused);
  EXPECT_EQ(paused.paused_by_goal, goal.id);
  // Final: no other change is taken.
  auto resumed = store_->change_goal(
      goal.id, [](Goal g) { return resume_goal(std::move(g), kNow + 3000); }, kNow + 3000);
  EXPECT_EQ(resumed.error().code, ErrorCode::kConflict);
  // A raised budget makes it active and resumes the loop it paused.
  const Goal raised = ok_value(store_->change_goal(
      goal.id, [](Goal g) { return change_budget(std::move(g), 2000, kNow + 4000); }, kNow + 4000));
  EXPECT_EQ(raised.status, GoalStatus::kActive);
  const Loop running = ok_value(store_->get_loop(loop.id)).value_or(Loop{});
  EXPECT_EQ(running.status, LoopStatus::kActive);
  EXPECT_EQ(running.paused_by_goal, "");
}

TEST_P(GoalsStore, ALoopAPersonPausedIsNotResumedByItsGoal) {
  const Loop loop = add_loop("agent");
  const Goal goal = ok_value(store_->create_goal(loop_goal(loop), kNow));
  ok_value(store_->change_goal(
      goal.id, [](Goal g) { return pause_goal(std::move(g), kNow + 1); }, kNow + 1));
  Loop by_goal = ok_value(store_->get_loop(loop.id)).value_or(Loop{});
  EXPECT_EQ(by_goal.status, LoopStatus::kPaused);
  // The person resumes and pauses it again themselves: it is theirs now.
  by_goal.paused_by_goal.clear();
  by_goal.status = LoopStatus::kPaused;
  ASSERT_TRUE(store_->update_loop_parts(by_goal, {false, true}, {}, kNow + 2).ok());
  ok_value(store_->change_goal(
      goal.id, [](Goal g) { return resume_goal(std::move(g), kNow + 3); }, kNow + 3));
  EXPECT_EQ(ok_value(store_->get_loop(loop.id)).value_or(Loop{}).status, LoopStatus::kPaused);
}

TEST_P(GoalsStore, AnAbandonedRunIsATurnOfAnActiveGoalCountedOnce) {
  const Loop loop = add_loop("agent");
  const Goal goal = ok_value(store_->create_goal(loop_goal(loop), kNow));
  const ClaimedRun run = claim(loop, kNow + kMinute);
  // No supervisor of it lives (the probe knows none).
  const TimeMs later = kNow + 10 * kMinute;  // the one-minute lease ran out
  ok_value(store_->recover_expired_runs(later, recovery(10), {}));
  ok_value(store_->recover_expired_runs(later + 1, recovery(10), {}));
  const std::vector<GoalTurn> turns = ok_value(store_->list_turns(goal.id, 10));
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_EQ(turns[0].run_status, RunStatus::kAbandoned);
  EXPECT_EQ(ok_value(store_->get_goal(goal.id)).value_or(Goal{}).turns, 1);
}

TEST_P(GoalsStore, AStepAttemptIsATurnOfItsStepsGoal) {
  const Workflow workflow = add_workflow("review", {"a", "b"});
  Goal goal;
  goal.objective = "review every file";
  goal.target = {GoalTargetType::kStep, "", workflow.id, workflow.name, "b"};
  goal = ok_value(store_->create_goal(goal, kNow));
  const WorkflowRun run = publish(workflow);
  const EngineFence fence = drive(run);
  const Reservation a = reserve(fence, run, "a", 1);
  ASSERT_TRUE(
      finalize_attempt(claim_of(a.attempt), turn_outcome(goal, 5, ""), "{}", kNow + 1).ok());
  EXPECT_TRUE(ok_value(store_->list_turns(goal.id, 10)).size() == 1u)
      << "an outcome naming the goal is its turn, whichever step";
  const Reservation b = reserve(fence, run, "b", 1);
  RunOutcome plain;
  plain.status = RunStatus::kFailed;
  plain.usage.output_tokens = 7;
  ASSERT_TRUE(finalize_attempt(claim_of(b.attempt), plain, "{}", kNow + 2).ok());
  const std::vector<GoalTurn> turns = ok_value(store_->list_turns(goal.id, 10));
  ASSERT_EQ(turns.size(), 2u);
  EXPECT_EQ(turns[1].step_id, "b");
  EXPECT_EQ(turns[1].workflow_run_id, run.id);
  EXPECT_EQ(turns[1].dispatch_id, b.attempt.dispatch_id);
  EXPECT_EQ(turns[1].run_status, RunStatus::kFailed);
  EXPECT_EQ(ok_value(store_->get_goal(goal.id)).value_or(Goal{}).tokens_used, 12);
}

TEST_P(GoalsStore, AUsageLimitedGoalIsGivenNoTurnUntilItsCooldownEndsThenReopens) {
  const Loop loop = add_loop("agent");
  const Goal goal = ok_value(store_->create_goal(loop_goal(loop), kNow));
  const ClaimedRun run = claim(loop, kNow + kMinute);
  RunOutcome limited = turn_outcome(goal, 0, "");
  limited.status = RunStatus::kFailed;
  limited.usage_limited = true;
  limited.usage_limited_until = kNow + 60 * kMinute;
  ASSERT_TRUE(store_->finish_claim(run.claim, limited, kNow + 2000).ok());
  const Goal cooling = ok_value(store_->get_goal(goal.id)).value_or(Goal{});
  EXPECT_EQ(cooling.status, GoalStatus::kUsageLimited);
  EXPECT_EQ(cooling.turns, 0);
  EXPECT_EQ(cooling.limited_until, kNow + 60 * kMinute);
  const ClaimedRun next = claim(loop, kNow + 2 * kMinute);
  EXPECT_FALSE(ok_value(store_->goal_of_work(next.claim, kNow + 3 * kMinute)).has_value());
  EXPECT_TRUE(ok_value(store_->goal_of_work(next.claim, kNow + 61 * kMinute)).has_value());
  EXPECT_EQ(ok_value(store_->reopen_cooled_goals(kNow + 30 * kMinute, {})), 0);
  EXPECT_EQ(ok_value(store_->reopen_cooled_goals(kNow + 61 * kMinute, {})), 1);
  EXPECT_EQ(ok_value(store_->get_goal(goal.id)).value_or(Goal{}).status, GoalStatus::kActive);
}

TEST_P(GoalsStore, DeletingALoopCancelsItsOpenGoalAndKeepsItsHistory) {
  const Loop loop = add_loop("agent");
  const Goal goal = ok_value(store_->create_goal(loop_goal(loop), kNow));
  ok_value(store_->delete_loop(loop.id));
  const Goal after = ok_value(store_->get_goal(goal.id)).value_or(Goal{});
  EXPECT_EQ(after.status, GoalStatus::kCancelled);
  EXPECT_EQ(after.status_reason, "its loop was deleted");
}

INSTANTIATE_TEST_SUITE_P(Backends, GoalsStore, backends(), backend_name);

}  // namespace
}  // namespace orrery

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)

class GoalsReopening : public WorkflowConformance {};

TEST_P(GoalsReopening, ARaisedBudgetCannotReopenAGoalWhoseTargetHasAnotherOpenOne) {
  const Loop loop = add_loop("agent");
  Goal first;
  first.objective = "first";
  first.target.loop_id = loop.id;
  first.token_budget = 100;
  first = ok_value(store_->create_goal(first, kNow));
  const ClaimedRun run = claim(loop, kNow + kMinute);
  RunOutcome spent;
  spent.status = RunStatus::kSucceeded;
  spent.usage.output_tokens = 500;
  spent.goal_id = first.id;
  ASSERT_TRUE(store_->finish_claim(run.claim, spent, kNow + 2000).ok());
  ASSERT_EQ(ok_value(store_->get_goal(first.id)).value_or(Goal{}).status,
            GoalStatus::kBudgetLimited);
  // A new goal on the loop the first one paused runs it again.
  Goal second;
  second.objective = "second";
  second.target.loop_id = loop.id;
  second = ok_value(store_->create_goal(second, kNow + 3000));
  EXPECT_EQ(ok_value(store_->get_loop(loop.id)).value_or(Loop{}).status, LoopStatus::kActive);
  auto reopened = store_->change_goal(
      first.id, [](Goal g) { return change_budget(std::move(g), 10'000, kNow + 4000); },
      kNow + 4000);
  ASSERT_FALSE(reopened.ok());
  EXPECT_EQ(reopened.error().code, ErrorCode::kConflict);
  EXPECT_NE(reopened.error().message.find(second.id), std::string::npos)
      << reopened.error().message;
  EXPECT_EQ(ok_value(store_->get_goal(first.id)).value_or(Goal{}).status,
            GoalStatus::kBudgetLimited);
}

INSTANTIATE_TEST_SUITE_P(Backends, GoalsReopening, backends(), backend_name);

}  // namespace
}  // namespace orrery
