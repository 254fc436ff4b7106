// libFuzzer target: the goal update parser, which reads what an agent left
// (its final message, or the ORRERY_GOAL_UPDATE file), plan files, and a
// turn's settlement with the bytes as its update.
//
// Checked (goal_update.h, goal_turn.h): nothing crashes, overflows the stack
// or leaks; an accepted update is valid UTF-8 within kMaxGoalUpdateBytes,
// says active, blocked or complete, names a node for a node status, and its
// nodes are valid; an accepted plan document is a valid plan; an update found
// in a message is a block of it that names "goal"; a settled turn keeps the
// plan valid, adds the run's tokens, spends at most one turn, and leaves the
// plan as it was when it records an update error from a refused update.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/exact_json.h"
#include "core/goal.h"
#include "core/goal_plan.h"
#include "core/goal_prompt.h"
#include "core/goal_turn.h"
#include "core/goal_update.h"
#include "core/text.h"
#include "views/goal_view.h"

namespace {

using orrery::Goal;
using orrery::GoalStatus;
using orrery::NodeStatus;
using orrery::PlanNode;

void check_update(std::string_view text) {
  auto update = orrery::parse_goal_update(text);
  if (!update) return;
  if (text.size() > orrery::kMaxGoalUpdateBytes || !orrery::is_valid_utf8(text)) __builtin_trap();
  if (update->status && *update->status != GoalStatus::kActive &&
      *update->status != GoalStatus::kBlocked && *update->status != GoalStatus::kComplete) {
    __builtin_trap();
  }
  if (update->node_status && update->node.empty()) __builtin_trap();
  if (orrery::count_code_points(update->summary) > orrery::kMaxSummaryCharacters) {
    __builtin_trap();
  }
  if (!orrery::is_valid_utf8(update->evidence_json)) __builtin_trap();
  if (update->plan) {
    if (update->plan->size() > orrery::kMaxPlanNodes) __builtin_trap();
    for (const PlanNode& node : *update->plan) {
      if (!orrery::validate_plan_node(node) || node.status != NodeStatus::kPending) {
        __builtin_trap();
      }
    }
  }
}

// A plan file is a proposal: each node valid alone and pending, the plan as
// a whole valid once merged (here into an empty plan, as `goal create
// --plan` merges it).
void check_plan_document(std::string_view text) {
  auto plan = orrery::parse_plan_document(text);
  if (!plan) return;
  if (plan->size() > orrery::kMaxPlanNodes) __builtin_trap();
  for (size_t index = 0; index < plan->size(); ++index) {
    const PlanNode& node = (*plan)[index];
    if (!orrery::validate_plan_node(node) || node.status != NodeStatus::kPending) __builtin_trap();
    if (node.sequence != std::int64_t(index)) __builtin_trap();
  }
  auto merged = orrery::merge_proposed_plan({}, *plan);
  if (merged && !orrery::validate_plan(*merged)) __builtin_trap();
}

PlanNode node(const char* key, NodeStatus status, std::vector<std::string> depends_on) {
  PlanNode node;
  node.key = key;
  node.objective = std::string("do ") + key;
  node.status = status;
  node.depends_on = std::move(depends_on);
  return node;
}

Goal goal_in(GoalStatus status) {
  Goal goal;
  goal.id = "g-1";
  goal.objective = "ship it";
  goal.status = status;
  goal.token_budget = 10'000;
  goal.tokens_used = 100;
  goal.max_turns = 5;
  goal.turns = 1;
  goal.plan = {node("a", NodeStatus::kComplete, {}), node("b", NodeStatus::kPending, {"a"}),
               node("c", NodeStatus::kActive, {"a"}), node("d", NodeStatus::kPending, {"b", "c"})};
  for (size_t index = 0; index < goal.plan.size(); ++index) goal.plan[index].sequence = index;
  goal.plan[1].token_budget = 500;
  return goal;
}

void check_turn(const Goal& goal, const std::optional<std::string>& update, bool usage_limited) {
  orrery::TurnInput input;
  input.tokens = 250;
  input.given_node = "b";
  input.update = update;
  input.usage_limited = usage_limited;
  input.now = 5'000;
  const orrery::TurnSettlement settled = orrery::settle_turn(goal, input);
  if (settled.goal.tokens_used != goal.tokens_used + 250) __builtin_trap();
  if (!orrery::validate_plan(settled.goal.plan)) __builtin_trap();
  const int spent = settled.goal.turns - goal.turns;
  if (spent != (settled.turn.spent ? 1 : 0)) __builtin_trap();
  if (settled.turn.turn != goal.turns + 1) __builtin_trap();
  if (settled.stops_target && settled.goal.status != GoalStatus::kBlocked &&
      settled.goal.status != GoalStatus::kBudgetLimited &&
      settled.goal.status != GoalStatus::kComplete) {
    __builtin_trap();
  }
  const bool open = goal.status == GoalStatus::kActive || goal.status == GoalStatus::kUsageLimited;
  if (!open && (settled.goal.status != goal.status || settled.turn.spent)) __builtin_trap();
  if (update && !orrery::parse_goal_update(*update)) {
    if (settled.turn.update_error.empty() || settled.goal.plan.size() != goal.plan.size()) {
      __builtin_trap();
    }
    for (size_t index = 0; index < goal.plan.size(); ++index) {
      if (settled.goal.plan[index].key != goal.plan[index].key ||
          settled.goal.plan[index].status != goal.plan[index].status) {
        __builtin_trap();
      }
    }
  }
  if (orrery::write_json(orrery::goal_json(settled.goal)).empty() ||
      orrery::write_json(orrery::turn_json(settled.turn)).empty()) {
    __builtin_trap();
  }
  (void)orrery::goal_prompt_section(settled.goal);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_update(text);
  check_plan_document(text);
  const std::optional<std::string> block = orrery::goal_update_in_message(text);
  if (block) {
    if (text.find(*block) == std::string_view::npos) __builtin_trap();
    if (block->find("\"goal\"") == std::string::npos) __builtin_trap();
    check_update(*block);
  }
  for (GoalStatus status : {GoalStatus::kActive, GoalStatus::kUsageLimited, GoalStatus::kPaused,
                            GoalStatus::kBudgetLimited}) {
    check_turn(goal_in(status), std::string(text), false);
    check_turn(goal_in(status), block, status == GoalStatus::kUsageLimited);
  }
  return 0;
}
