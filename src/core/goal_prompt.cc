#include "core/goal_prompt.h"

#include <algorithm>

#include "core/goal_plan.h"
#include "core/token_amount.h"

namespace orrery {
namespace {

std::string budget_line(const Goal& goal) {
  if (!goal.token_budget) {
    return "Budget: no token limit (" + std::to_string(goal.tokens_used) + " tokens used so far).";
  }
  return "Budget: " + std::to_string(*tokens_left(goal)) + " of " +
         format_token_amount(*goal.token_budget) + " tokens left.";
}

std::string turns_line(const Goal& goal) {
  if (!goal.max_turns) return "Turns: this is turn " + std::to_string(goal.turns + 1) + ".";
  const int left = *goal.max_turns - goal.turns;
  return "Turns: this is turn " + std::to_string(goal.turns + 1) + " of " +
         std::to_string(*goal.max_turns) + " (" + std::to_string(left > 0 ? left : 0) +
         " left, this one included).";
}

std::string plan_lines(const Goal& goal) {
  if (goal.plan.empty()) {
    return "Plan: none yet. Propose one with \"plan\" in your reply: the nodes of work, each "
           "with a key, an objective and the keys it depends on.\n";
  }
  const std::vector<std::string> ready = ready_keys(goal.plan);
  std::string lines = "Plan:\n";
  for (const PlanNode& node : goal.plan) {
    const bool is_ready = std::find(ready.begin(), ready.end(), node.key) != ready.end();
    lines += "- " + node.key + " [" + node_status_name(node.status) + (is_ready ? ", ready" : "") +
             "]: " + node.objective;
    if (!node.depends_on.empty()) {
      lines += " (after ";
      for (size_t index = 0; index < node.depends_on.size(); ++index)
        lines += (index ? ", " : "") + node.depends_on[index];
      lines += ")";
    }
    lines += "\n";
  }
  return lines;
}

std::string work_line(const Goal& goal) {
  if (goal.drive == DriveMode::kAgent) {
    return "Choose the node to work on this turn (a ready one, unless the plan needs changing), "
           "and name it in your reply.\n";
  }
  const std::string key = node_to_work_on(goal);
  if (key.empty()) {
    return goal.plan.empty() ? ""
                             : "No node is ready: revise the plan, or report the goal blocked "
                               "or complete.\n";
  }
  return "Work on this node this turn: " + key + " — " + find_node(goal.plan, key)->objective +
         "\n";
}

constexpr const char* kReplyHelp =
    "When you stop, reply with your update as the last fenced json block of your final "
    "message (or write the same JSON to the file named by $ORRERY_GOAL_UPDATE):\n"
    "```json\n"
    "{\"goal\": {\"status\": \"active\", \"node\": \"KEY\", \"node_status\": \"complete\",\n"
    "  \"evidence\": {\"what\": \"shows the progress\"}, \"summary\": \"what you did\"}}\n"
    "```\n"
    "status: active (more to do), blocked (you cannot go on) or complete (the objective is "
    "met). node_status: pending, active, blocked, complete or cancelled. To revise the work "
    "still to do, add \"plan\": [{\"key\": \"...\", \"objective\": \"...\", \"depends_on\": "
    "[\"...\"]}] — it replaces every node not yet complete.\n";

}  // namespace

std::string node_to_work_on(const Goal& goal) {
  if (goal.drive != DriveMode::kReady) return "";
  const std::vector<std::string> ready = ready_keys(goal.plan);
  return ready.empty() ? "" : ready.front();
}

std::string goal_prompt_section(const Goal& goal) {
  if (goal.drive == DriveMode::kOff) return "";
  std::string section = "\n\n--- orrery goal (" + std::string(kGoalPromptVersion) + ") ---\n";
  section += "Objective:\n" + goal.objective + "\n\n";
  section += budget_line(goal) + "\n" + turns_line(goal) + "\n\n";
  section += plan_lines(goal) + "\n";
  section += work_line(goal);
  if (!goal.last_update_error.empty()) {
    section += "Your last update was refused: " + goal.last_update_error + "\n";
  }
  section += "\n";
  section += kReplyHelp;
  section += "--- end of orrery goal ---\n";
  return section;
}

}  // namespace orrery
