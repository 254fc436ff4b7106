#include "core/workflow.h"

#include <gtest/gtest.h>

namespace orrery {
namespace {

TEST(WorkflowNames, RoundTripEveryStatus) {
  for (auto status :
       {WorkflowRunStatus::kPending, WorkflowRunStatus::kRunning, WorkflowRunStatus::kSucceeded,
        WorkflowRunStatus::kFailed, WorkflowRunStatus::kCancelled}) {
    EXPECT_EQ(*parse_workflow_run_status(workflow_run_status_name(status)), status);
  }
  for (auto status :
       {StepStatus::kPending, StepStatus::kRunning, StepStatus::kSucceeded, StepStatus::kFailed,
        StepStatus::kTimedOut, StepStatus::kSkipped, StepStatus::kCancelled}) {
    EXPECT_EQ(*parse_step_status(step_status_name(status)), status);
  }
  auto bad = parse_workflow_run_status("done");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("pending, running, succeeded, failed, cancelled"),
            std::string::npos);
}

TEST(WorkflowStatus, FinishedMeansTerminal) {
  EXPECT_FALSE(is_finished(WorkflowRunStatus::kPending));
  EXPECT_FALSE(is_finished(WorkflowRunStatus::kRunning));
  EXPECT_TRUE(is_finished(WorkflowRunStatus::kCancelled));
  EXPECT_FALSE(is_finished(StepStatus::kRunning));
  EXPECT_TRUE(is_finished(StepStatus::kSkipped));
  EXPECT_TRUE(is_finished(StepStatus::kTimedOut));
}

TEST(WorkflowStatus, AnAttemptLeavesItsStepStatus) {
  EXPECT_EQ(step_status_of(RunStatus::kSucceeded), StepStatus::kSucceeded);
  EXPECT_EQ(step_status_of(RunStatus::kTimedOut), StepStatus::kTimedOut);
  EXPECT_EQ(step_status_of(RunStatus::kCancelled), StepStatus::kCancelled);
  EXPECT_EQ(step_status_of(RunStatus::kFailed), StepStatus::kFailed);
  EXPECT_EQ(step_status_of(RunStatus::kAbandoned), StepStatus::kFailed);
}

TEST(WorkflowDispatch, IdsAreStablePerAttempt) {
  EXPECT_EQ(dispatch_id("run1", "build", 1), "run1/build/1");
  EXPECT_EQ(dispatch_id("run1", "build", 12), "run1/build/12");
  EXPECT_NE(dispatch_id("run1", "build", 1), dispatch_id("run1", "build", 2));
}

StepAttempt attempt_with(const std::string& phase, std::optional<std::int64_t> in,
                         std::optional<std::int64_t> out, std::optional<double> cost) {
  StepAttempt attempt;
  attempt.phase = phase;
  attempt.usage = {in, out, cost};
  return attempt;
}

TEST(WorkflowAccounting, SumsAttemptsByPhaseInFirstSeenOrder) {
  const auto phases = account_attempts({attempt_with("execute", 100, 20, 0.5),
                                        attempt_with("review", 7, std::nullopt, std::nullopt),
                                        attempt_with("execute", 50, 5, 0.25),
                                        attempt_with("execute", std::nullopt, std::nullopt, 0)});
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[0].phase, "execute");
  EXPECT_EQ(phases[0].totals, (Accounting{3, 150, 25, 0.75}));
  EXPECT_EQ(phases[1].phase, "review");
  EXPECT_EQ(phases[1].totals, (Accounting{1, 7, 0, 0}));
  EXPECT_TRUE(account_attempts({}).empty());
  EXPECT_EQ(total_of(phases), (Accounting{4, 157, 25, 0.75}));
  EXPECT_EQ(total_of({}), Accounting{});
}

TEST(WorkflowAccount, AStepAccountScopesItsProvider) {
  WorkflowStep command;
  command.target.argv = {"/bin/true"};
  EXPECT_EQ(step_account(command), "");
  WorkflowStep agent;
  agent.target.type = TargetType::kAgent;
  agent.target.agent = AgentTarget{};
  agent.target.agent->provider = AgentProvider::kCodex;
  EXPECT_EQ(step_account(agent), cooldown_account(agent.target));
  agent.account = "team";
  EXPECT_EQ(step_account(agent), "codex:team");
}

}  // namespace
}  // namespace orrery
