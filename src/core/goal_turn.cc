#include "core/goal_turn.h"

#include "core/goal_plan.h"
#include "core/goal_update.h"
#include "core/token_amount.h"

namespace orrery {
namespace {

// total += tokens, saturating at the int64 maximum (counts are untrusted).
void add_tokens(std::int64_t& total, std::int64_t tokens) {
  if (__builtin_add_overflow(total, tokens, &total)) total = INT64_MAX;
}

// The update applied to a copy of the goal; an error leaves the goal as it was.
Result<Goal> apply_update(const Goal& goal, const GoalUpdate& update) {
  Goal next = goal;
  if (update.plan) {
    auto merged = merge_proposed_plan(goal.plan, *update.plan);
    if (!merged) return Error{merged.error().code, "the proposed plan: " + merged.error().message};
    next.plan = std::move(*merged);
  }
  if (update.node_status) {
    PlanNode* node = find_node(next.plan, update.node);
    if (node == nullptr) {
      return usage_error("goal.node names no node of the plan: '" + update.node + "'");
    }
    node->status = *update.node_status;
  } else if (!update.node.empty() && find_node(next.plan, update.node) == nullptr) {
    return usage_error("goal.node names no node of the plan: '" + update.node + "'");
  }
  return next;
}

bool has_nodes_left(const Goal& goal) {
  for (const PlanNode& node : goal.plan) {
    if (node.status == NodeStatus::kPending || node.status == NodeStatus::kActive) return true;
  }
  return false;
}

std::string nodes_left(const Goal& goal) {
  std::string keys;
  for (const PlanNode& node : goal.plan) {
    if (node.status != NodeStatus::kPending && node.status != NodeStatus::kActive) continue;
    keys += (keys.empty() ? "" : ", ") + node.key;
  }
  return keys;
}

bool plan_shape_changed(const std::vector<PlanNode>& before, const std::vector<PlanNode>& after) {
  if (before.size() != after.size()) return true;
  for (size_t index = 0; index < before.size(); ++index) {
    const PlanNode& a = before[index];
    const PlanNode& b = after[index];
    if (a.key != b.key || a.objective != b.objective || a.depends_on != b.depends_on ||
        a.priority != b.priority || a.token_budget != b.token_budget || a.status != b.status) {
      return true;
    }
  }
  return false;
}

void set_status(Goal& goal, GoalStatus status, std::string reason, TurnSettlement& settled) {
  goal.status = status;
  goal.status_reason = std::move(reason);
  settled.stops_target = status == GoalStatus::kBlocked || status == GoalStatus::kBudgetLimited ||
                         status == GoalStatus::kComplete;
}

// The status rules of the header, for a goal that was open.
void decide_status(Goal& goal, const Goal& before, const std::optional<GoalUpdate>& update,
                   const TurnInput& input, TurnSettlement& settled) {
  GoalTurn& turn = settled.turn;
  if (update && update->status == GoalStatus::kComplete) {
    if (!has_nodes_left(goal) || update->force) {
      for (PlanNode& node : goal.plan) {
        if (node.status == NodeStatus::kPending || node.status == NodeStatus::kActive)
          node.status = NodeStatus::kCancelled;
      }
      goal.turns += 1;
      set_status(goal, GoalStatus::kComplete,
                 update->summary.empty() ? "the objective is met" : update->summary, settled);
      return;
    }
    turn.update_error = "the update says complete, but nodes are left: " + nodes_left(goal) +
                        "; mark them complete or cancelled, or send \"force\": true";
  }
  if (goal.token_budget && goal.tokens_used >= *goal.token_budget) {
    // A run stopped by a usage limit spends no turn, whatever else it ends.
    if (input.usage_limited) {
      turn.spent = false;
    } else {
      goal.turns += 1;
    }
    set_status(goal, GoalStatus::kBudgetLimited,
               "the budget of " + format_token_amount(*goal.token_budget) + " tokens is used up (" +
                   std::to_string(goal.tokens_used) + " used)",
               settled);
    return;
  }
  if (input.usage_limited) {
    turn.spent = false;
    set_status(goal, GoalStatus::kUsageLimited, "the provider's usage limit was reached", settled);
    goal.limited_until = input.limited_until.value_or(input.now);
    return;
  }
  goal.turns += 1;
  const bool progress =
      plan_shape_changed(before.plan, goal.plan) ||
      (!turn.evidence_json.empty() && turn.evidence_json != before.last_evidence_json);
  goal.turns_without_progress = progress ? 0 : goal.turns_without_progress + 1;
  if (goal.max_turns && goal.turns >= *goal.max_turns) {
    set_status(goal, GoalStatus::kBlocked,
               "reached its limit of " + std::to_string(*goal.max_turns) + " turns", settled);
  } else if (goal.turns_without_progress >= goal.stall_turns) {
    set_status(goal, GoalStatus::kBlocked,
               "no progress in " + std::to_string(goal.turns_without_progress) + " turns", settled);
  } else if (update && update->status == GoalStatus::kBlocked) {
    set_status(goal, GoalStatus::kBlocked,
               update->summary.empty() ? "the target reported it is blocked" : update->summary,
               settled);
  } else {
    set_status(goal, GoalStatus::kActive, "", settled);
  }
}

// A failed run none of whose work started, and that used no token.
bool never_started(const TurnInput& input) {
  return !input.work_started && !input.usage_limited && input.tokens <= 0 &&
         input.run_status == RunStatus::kFailed;
}

}  // namespace

bool cooldown_over(const Goal& goal, TimeMs now) {
  return goal.status == GoalStatus::kUsageLimited && goal.limited_until &&
         *goal.limited_until <= now;
}

TurnSettlement settle_turn(const Goal& goal, const TurnInput& input) {
  TurnSettlement settled;
  GoalTurn& turn = settled.turn;
  turn.goal_id = goal.id;
  turn.turn = goal.turns + 1;
  turn.run_status = input.run_status;
  turn.tokens_used = input.tokens > 0 ? input.tokens : 0;
  turn.created_at = input.now;
  turn.node_key = input.given_node;

  Goal next = goal;
  std::optional<GoalUpdate> update;
  const bool open = goal.status == GoalStatus::kActive || goal.status == GoalStatus::kUsageLimited;
  if (!input.update_error.empty()) {
    turn.update_error = input.update_error;
  } else if (input.update) {
    turn.update_json = *input.update;
    auto parsed = parse_goal_update(*input.update);
    auto applied = !parsed ? Result<Goal>(parsed.error())
                   : open  ? apply_update(goal, *parsed)
                           : Result<Goal>(conflict_error(
                                 std::string("the goal was ") + goal_status_name(goal.status) +
                                 " when the turn ended: its update was not applied"));
    if (applied) {
      update = std::move(*parsed);
      next = std::move(*applied);
      if (!update->node.empty()) turn.node_key = update->node;
      turn.evidence_json = update->evidence_json;
      turn.summary = update->summary;
    } else {
      turn.update_error = applied.error().message;
    }
  }
  add_tokens(next.tokens_used, turn.tokens_used);
  if (PlanNode* node = find_node(next.plan, turn.node_key)) {
    add_tokens(node->tokens_used, turn.tokens_used);
    if (!node_within_budget(*node) && node->status != NodeStatus::kComplete &&
        node->status != NodeStatus::kCancelled) {
      node->status = NodeStatus::kBlocked;
    }
  }
  if (never_started(input)) {
    turn.spent = false;
    if (turn.summary.empty()) {
      turn.summary = "not a turn: the run failed before its work started" +
                     (input.run_error.empty() ? "" : " (" + input.run_error + ")");
    }
  } else if (open) {
    next.limited_until.reset();
    decide_status(next, goal, update, input, settled);
  } else {
    turn.spent = false;
  }
  if (!turn.evidence_json.empty()) next.last_evidence_json = turn.evidence_json;
  if (!turn.summary.empty()) next.last_summary = turn.summary;
  next.last_update_error = turn.update_error;
  next.updated_at = input.now;
  turn.turn = turn.spent ? next.turns : goal.turns + 1;
  turn.status = next.status;
  settled.goal = std::move(next);
  return settled;
}

}  // namespace orrery
