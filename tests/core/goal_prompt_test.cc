#include "core/goal_prompt.h"

#include <gtest/gtest.h>

#include <string>

#include "core/goal_update.h"

namespace orrery {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

PlanNode node(const std::string& key, std::vector<std::string> depends_on = {},
              NodeStatus status = NodeStatus::kPending, std::int64_t priority = 0) {
  PlanNode node;
  node.key = key;
  node.objective = "do " + key;
  node.depends_on = std::move(depends_on);
  node.status = status;
  node.priority = priority;
  return node;
}

Goal goal_with(DriveMode drive) {
  Goal goal;
  goal.id = "g-1";
  goal.objective = "Make the test suite pass on Python 3.13";
  goal.drive = drive;
  goal.token_budget = 200'000;
  goal.tokens_used = 38'000;
  goal.plan = {node("setup", {}, NodeStatus::kComplete), node("low", {"setup"}),
               node("urgent", {"setup"}, NodeStatus::kPending, 5), node("last", {"low", "urgent"})};
  for (size_t index = 0; index < goal.plan.size(); ++index) goal.plan[index].sequence = index;
  return goal;
}

TEST(GoalPrompt, DriveReadyNamesTheFirstReadyNode) {
  const Goal goal = goal_with(DriveMode::kReady);
  EXPECT_EQ(node_to_work_on(goal), "urgent");
  const std::string section = goal_prompt_section(goal);
  EXPECT_EQ(section.rfind("\n\n", 0), 0u) << "starts with a blank line";
  EXPECT_TRUE(contains(section, "goal prompt v1"));
  EXPECT_TRUE(contains(section, kGoalPromptVersion));
  EXPECT_TRUE(contains(section, "Make the test suite pass on Python 3.13"));
  EXPECT_TRUE(contains(section, "Budget: 162000 of 200k tokens left.")) << section;
  EXPECT_TRUE(contains(section, "Turns: this is turn 1.")) << section;
  EXPECT_TRUE(contains(section, "Work on this node this turn: urgent — do urgent")) << section;
  EXPECT_FALSE(contains(section, "Choose the node"));
  EXPECT_TRUE(contains(section, "$ORRERY_GOAL_UPDATE"));
  EXPECT_TRUE(contains(section, "```json"));
}

TEST(GoalPrompt, ThePlanWithStatuses) {
  const std::string section = goal_prompt_section(goal_with(DriveMode::kReady));
  EXPECT_TRUE(contains(section, "- setup [complete]: do setup\n")) << section;
  EXPECT_TRUE(contains(section, "- low [pending, ready]: do low (after setup)\n")) << section;
  EXPECT_TRUE(contains(section, "- urgent [pending, ready]: do urgent (after setup)\n"));
  EXPECT_TRUE(contains(section, "- last [pending]: do last (after low, urgent)\n")) << section;
}

TEST(GoalPrompt, DriveAgentLetsTheAgentChoose) {
  const Goal goal = goal_with(DriveMode::kAgent);
  EXPECT_EQ(node_to_work_on(goal), "");
  const std::string section = goal_prompt_section(goal);
  EXPECT_TRUE(contains(section, "goal prompt v1"));
  EXPECT_TRUE(contains(section, "Choose the node to work on this turn")) << section;
  EXPECT_FALSE(contains(section, "Work on this node"));
  EXPECT_TRUE(contains(section, goal.objective));
}

TEST(GoalPrompt, DriveOffAppendsNothing) {
  Goal goal = goal_with(DriveMode::kOff);
  goal.last_update_error = "something";
  EXPECT_EQ(goal_prompt_section(goal), "");
  EXPECT_EQ(node_to_work_on(goal), "");
}

TEST(GoalPrompt, TheLastUpdateError) {
  Goal goal = goal_with(DriveMode::kReady);
  EXPECT_FALSE(contains(goal_prompt_section(goal), "Your last update was refused"));
  goal.last_update_error = "the plan has a dependency cycle through node low";
  EXPECT_TRUE(contains(goal_prompt_section(goal),
                       "Your last update was refused: the plan has a dependency cycle through "
                       "node low\n"));
}

TEST(GoalPrompt, BudgetAndTurnsLines) {
  Goal goal = goal_with(DriveMode::kReady);
  goal.token_budget.reset();
  EXPECT_TRUE(
      contains(goal_prompt_section(goal), "Budget: no token limit (38000 tokens used so far)."));
  goal.token_budget = 1'500'000;
  goal.tokens_used = 2'000'000;
  EXPECT_TRUE(contains(goal_prompt_section(goal), "Budget: 0 of 1.5M tokens left."));
  goal.max_turns = 5;
  goal.turns = 3;
  EXPECT_TRUE(contains(goal_prompt_section(goal),
                       "Turns: this is turn 4 of 5 (2 left, this one included)."))
      << goal_prompt_section(goal);
  goal.turns = 9;
  EXPECT_TRUE(contains(goal_prompt_section(goal), "(0 left, this one included)"));
}

TEST(GoalPrompt, NoPlanOrNoReadyNode) {
  Goal goal = goal_with(DriveMode::kReady);
  goal.plan.clear();
  std::string section = goal_prompt_section(goal);
  EXPECT_TRUE(contains(section, "Plan: none yet. Propose one")) << section;
  EXPECT_FALSE(contains(section, "Work on this node"));
  EXPECT_FALSE(contains(section, "No node is ready"));
  goal = goal_with(DriveMode::kReady);
  for (PlanNode& each : goal.plan) each.status = NodeStatus::kBlocked;
  EXPECT_EQ(node_to_work_on(goal), "");
  section = goal_prompt_section(goal);
  EXPECT_TRUE(contains(section, "No node is ready: revise the plan")) << section;
}

// A node over its budget is not ready, so the next one is given.
TEST(GoalPrompt, TheNodeGivenIsWithinItsBudget) {
  Goal goal = goal_with(DriveMode::kReady);
  goal.plan[2].token_budget = 100;
  goal.plan[2].tokens_used = 100;
  EXPECT_EQ(node_to_work_on(goal), "low");
}

// The reply the section shows is an update the parser reads.
TEST(GoalPrompt, TheExampleReplyIsAnUpdate) {
  const std::string section = goal_prompt_section(goal_with(DriveMode::kAgent));
  const std::optional<std::string> block = goal_update_in_message(section);
  ASSERT_TRUE(block.has_value()) << section;
  auto update = parse_goal_update(*block);
  ASSERT_TRUE(update) << update.error().message;
  EXPECT_EQ(update->status, GoalStatus::kActive);
  EXPECT_EQ(update->node_status, NodeStatus::kComplete);
  EXPECT_FALSE(update->evidence_json.empty());
}

}  // namespace
}  // namespace orrery
