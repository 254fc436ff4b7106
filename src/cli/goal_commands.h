// Goal commands (docs/goals.md, docs/cli.md "Goals"): `orrery goal create |
// ls | show | turns | pause | resume | cancel | budget | plan`. A goal is
// attached to a loop (--loop), a workflow (--workflow) or one of its steps
// (--workflow W --step S); every change goes through the store's one
// goal-change path (store/goal_book.h), which also pauses or resumes the
// goal's loop.
#pragma once

#include <optional>
#include <string>

#include "cli/command.h"

namespace orrery::cli {

struct GoalArgs {
  std::string goal;  // G for every command but create and ls
  std::string loop;
  std::string workflow;
  std::string step;
  std::optional<std::string> objective;
  std::string objective_file;
  std::optional<std::string> budget;
  std::optional<int> max_turns;
  std::optional<int> stall_turns;
  std::string drive = "ready";
  std::string plan_file;  // create --plan, plan --set
  std::string status;     // ls --status
  std::optional<int> limit;
  int offset = 0;                  // ls --offset
  std::optional<std::string> add;  // budget --add
  std::optional<std::string> set;  // budget --set
  std::string node;                // plan --node
  std::string node_status;         // plan --status
};

Result<int> create_goal_command(const GoalArgs& args, const Context& context);
Result<int> list_goals_command(const GoalArgs& args, const Context& context);
Result<int> show_goal_command(const GoalArgs& args, const Context& context);
Result<int> goal_turns_command(const GoalArgs& args, const Context& context);
Result<int> pause_goal_command(const GoalArgs& args, const Context& context);
Result<int> resume_goal_command(const GoalArgs& args, const Context& context);
Result<int> cancel_goal_command(const GoalArgs& args, const Context& context);
Result<int> goal_budget_command(const GoalArgs& args, const Context& context);
Result<int> goal_plan_command(const GoalArgs& args, const Context& context);

// "████████░░ 81% of 200k" (empty budget: "12,345 tokens, no budget").
std::string budget_bar(std::int64_t used, std::optional<std::int64_t> budget);

}  // namespace orrery::cli
