#include "cli/goal_commands.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/handles.h"
#include "cli/human.h"
#include "cli/page_note.h"
#include "cli/store_access.h"
#include "cli/workflow_target.h"
#include "core/duration.h"
#include "core/exit_codes.h"
#include "core/goal_edits.h"
#include "core/goal_plan.h"
#include "core/goal_update.h"
#include "core/text.h"
#include "core/token_amount.h"
#include "exec/wake.h"
#include "ops/goals.h"
#include "store/regular_file.h"
#include "views/document_text.h"
#include "views/goal_view.h"

namespace orrery::cli {
namespace {

constexpr std::int64_t kMaxObjectiveFileBytes = 64 * 1024;
constexpr std::int64_t kMaxPlanFileBytes = 1 << 20;
constexpr int kMaxStallTurns = 1000;
constexpr int kMaxTurns = 1'000'000;
constexpr int kGoalsPage = 100;  // goal ls without --limit
constexpr int kTurnsShown = 20;  // goal turns without --limit
constexpr int kMaxTurnsShown = 100000;

Result<std::string> read_text_file(const std::string& path, std::int64_t max_bytes,
                                   const std::string& option) {
  auto file = read_regular_file(path, max_bytes);
  if (!file) return usage_error(option + ": " + file.error().message);
  if (!file->has_value()) return usage_error(option + ": there is no file " + visible(path));
  return std::move(**file);
}

Result<std::string> objective_of(const GoalArgs& args) {
  if (args.objective.has_value() == !args.objective_file.empty()) {
    return usage_error("give the goal's objective: --objective TEXT or --objective-file FILE");
  }
  if (args.objective) return check_objective(*args.objective);
  auto text = read_text_file(args.objective_file, kMaxObjectiveFileBytes, "--objective-file");
  if (!text) return text.error();
  return check_objective(*text);
}

Result<GoalTarget> target_of(Store& store, const GoalArgs& args) {
  if (args.loop.empty() == args.workflow.empty()) {
    return usage_error("attach the goal to one target: --loop L, or --workflow W [--step S]");
  }
  if (!args.step.empty() && args.workflow.empty()) {
    return usage_error("--step names a step of --workflow W; give the workflow too");
  }
  GoalTarget target;
  if (!args.loop.empty()) {
    auto loop = store.resolve_loop(args.loop);
    if (!loop) return loop.error();
    target.type = GoalTargetType::kLoop;
    target.loop_id = loop->id;
    return target;
  }
  auto workflow = resolve_workflow_reference(store, args.workflow, "--workflow");
  if (!workflow) return workflow.error();
  target.type = args.step.empty() ? GoalTargetType::kWorkflow : GoalTargetType::kStep;
  target.workflow_id = workflow->id;
  target.workflow_name = workflow->name;
  if (!args.step.empty()) {
    const auto& steps = workflow->spec.steps;
    const bool known = std::any_of(steps.begin(), steps.end(),
                                   [&](const WorkflowStep& step) { return step.id == args.step; });
    if (!known) {
      std::string ids;
      for (const WorkflowStep& step : steps) ids += (ids.empty() ? "" : ", ") + step.id;
      return not_found_error("workflow " + workflow->name + " has no step '" + visible(args.step) +
                             "'; its steps: " + ids);
    }
    target.step_id = args.step;
  }
  return target;
}

Result<std::vector<PlanNode>> plan_file(const std::string& path) {
  auto text = read_text_file(path, kMaxPlanFileBytes, "the plan file");
  if (!text) return text.error();
  return parse_plan_document(*text);
}

Result<int> bounded(std::optional<int> value, const char* option, int low, int high) {
  if (!value) return 0;
  if (*value < low || *value > high) {
    return usage_error(std::string(option) + " " + std::to_string(*value) + ": expected " +
                       std::to_string(low) + " to " + std::to_string(high));
  }
  return *value;
}

Result<Goal> new_goal(Store& store, const GoalArgs& args) {
  Goal goal;
  auto objective = objective_of(args);
  if (!objective) return objective.error();
  goal.objective = *objective;
  auto target = target_of(store, args);
  if (!target) return target.error();
  goal.target = *target;
  if (args.budget) {
    auto budget = parse_token_amount(*args.budget, "--budget");
    if (!budget) return budget.error();
    goal.token_budget = *budget;
  }
  auto max_turns = bounded(args.max_turns, "--max-turns", 1, kMaxTurns);
  if (!max_turns) return max_turns.error();
  if (args.max_turns) goal.max_turns = *max_turns;
  auto stall = bounded(args.stall_turns, "--stall-turns", 1, kMaxStallTurns);
  if (!stall) return stall.error();
  if (args.stall_turns) goal.stall_turns = *stall;
  auto drive = parse_drive_mode(args.drive);
  if (!drive) return usage_error("--drive: " + drive.error().message);
  goal.drive = *drive;
  if (!args.plan_file.empty()) {
    auto plan = plan_file(args.plan_file);
    if (!plan) return plan.error();
    auto merged = merge_proposed_plan({}, *plan);  // a new goal's plan: nothing is complete
    if (!merged) return merged.error();
    goal.plan = std::move(*merged);
  }
  return goal;
}

std::string node_mark(NodeStatus status, bool ready) {
  switch (status) {
    case NodeStatus::kComplete:
      return "[x]";
    case NodeStatus::kActive:
      return "[>]";
    case NodeStatus::kBlocked:
      return "[!]";
    case NodeStatus::kCancelled:
      return "[-]";
    case NodeStatus::kPending:
      return ready ? "[ ]" : "[.]";
  }
  return "[?]";
}

// Each node under the node it depends on last in the plan (its parent in the
// tree); a node that depends on others is listed once, under that parent.
void print_plan_tree(std::ostream& out, const Goal& goal) {
  if (goal.plan.empty()) {
    out << "plan: none yet (the agent may propose one, or: orrery goal plan " << goal.id
        << " --set FILE)\n";
    return;
  }
  const std::vector<std::string> ready = ready_keys(goal.plan);
  std::map<std::string, std::vector<const PlanNode*>> children;
  std::vector<const PlanNode*> roots;
  for (const PlanNode& node : goal.plan) {
    if (node.depends_on.empty()) {
      roots.push_back(&node);
      continue;
    }
    const std::string* parent = &node.depends_on.front();
    for (const std::string& dependency : node.depends_on) {
      const PlanNode* candidate = find_node(goal.plan, dependency);
      if (candidate && candidate->sequence > find_node(goal.plan, *parent)->sequence)
        parent = &dependency;
    }
    children[*parent].push_back(&node);
  }
  out << "plan:\n";
  std::function<void(const PlanNode*, const std::string&)> print = [&](const PlanNode* node,
                                                                       const std::string& indent) {
    const bool is_ready = std::find(ready.begin(), ready.end(), node->key) != ready.end();
    std::string line = indent + node_mark(node->status, is_ready) + " " + node->key + "  " +
                       node->objective + "  (" + node_status_name(node->status);
    if (is_ready) line += ", ready";
    if (node->tokens_used > 0 || node->token_budget) {
      line += ", " + format_count(node->tokens_used) + " tokens";
      if (node->token_budget) line += " of " + format_token_amount(*node->token_budget);
    }
    line += ")";
    out << terminal_text(line) << '\n';
    for (const PlanNode* child : children[node->key]) print(child, indent + "    ");
  };
  for (const PlanNode* root : roots) print(root, "  ");
}

std::string target_text(const Goal& goal) {
  switch (goal.target.type) {
    case GoalTargetType::kLoop:
      return "loop " + goal.target.loop_id;
    case GoalTargetType::kWorkflow:
      return "workflow " + goal.target.workflow_name + " (each run)";
    case GoalTargetType::kStep:
      return "step " + goal.target.step_id + " of workflow " + goal.target.workflow_name +
             " (each attempt)";
  }
  return "";
}

void print_goal(const Context& context, const Goal& goal) {
  if (context.globals.json) {
    *context.out << json_text(goal_json(goal)) << '\n';
    return;
  }
  std::string status = goal_status_name(goal.status);
  if (!goal.status_reason.empty()) status += ": " + goal.status_reason;
  std::string turns = std::to_string(goal.turns);
  if (goal.max_turns) turns += " of " + std::to_string(*goal.max_turns);
  turns += " (blocked after " + std::to_string(goal.stall_turns) + " without progress; " +
           std::to_string(goal.turns_without_progress) + " so far)";
  std::vector<std::pair<std::string, std::string>> fields{
      {"id", goal.id},
      {"objective", goal.objective},
      {"status", status},
      {"target", target_text(goal)},
      {"drive", drive_mode_name(goal.drive)},
      {"budget", budget_bar(goal.tokens_used, goal.token_budget)},
      {"turns", turns},
      {"created", format_relative(goal.created_at, context.now)}};
  if (!goal.last_summary.empty()) fields.push_back({"last summary", goal.last_summary});
  if (!goal.last_update_error.empty())
    fields.push_back({"last update refused", goal.last_update_error});
  print_fields(*context.out, fields);
  print_plan_tree(*context.out, goal);
}

using GoalChange = Result<Goal> (*)(const ops::GoalPlace& place, const std::string& goal);

// The goal as changed, printed.
Result<int> print_changed(const Context& context, const Result<Goal>& changed) {
  if (!changed) return changed.error();
  print_goal(context, *changed);
  return kExitOk;
}

Result<int> change_and_print(const GoalArgs& args, const Context& context, GoalChange change) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  return print_changed(context, change({*opened->store, opened->home, context.now}, args.goal));
}

}  // namespace

std::string budget_bar(std::int64_t used, std::optional<std::int64_t> budget) {
  if (!budget) return format_count(used) + " tokens, no budget";
  const double share = *budget > 0 ? double(used) / double(*budget) : 1.0;
  const int filled = int(std::clamp(share, 0.0, 1.0) * 10.0);
  std::string bar;
  for (int cell = 0; cell < 10; ++cell) bar += cell < filled ? "\u2588" : "\u2591";
  return bar + " " + std::to_string(int(share * 100.0)) + "% of " + format_token_amount(*budget) +
         " (" + format_count(used) + " used)";
}

Result<int> create_goal_command(const GoalArgs& args, const Context& context) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  Store& store = *opened->store;
  auto goal = new_goal(store, args);
  if (!goal) return goal.error();
  auto created = store.create_goal(*goal, context.now);
  if (!created) return created.error();
  print_goal(context, *created);
  return kExitOk;
}

Result<int> list_goals_command(const GoalArgs& args, const Context& context) {
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  GoalFilter filter;
  if (!args.loop.empty()) {
    auto loop = opened->store->resolve_loop(args.loop);
    if (!loop) return loop.error();
    filter.loop_id = loop->id;
  }
  if (!args.status.empty()) {
    auto status = parse_goal_status(args.status);
    if (!status) return usage_error("--status: " + status.error().message);
    filter.status = *status;
  }
  filter.limit = args.limit.value_or(kGoalsPage);
  filter.offset = args.offset;
  if (auto checked = check_page_options(filter.limit, 10000, filter.offset); !checked) {
    return checked.error();
  }
  auto goals = opened->store->list_goals(filter);
  if (!goals) return goals.error();
  auto page = listed_page(filter.offset, filter.limit, goals->size(),
                          [&] { return opened->store->count_goals(filter); });
  if (!page) return page.error();
  const std::string next_page = next_page_command(
      command_of("orrery goal ls",
                 {option_word("--status", args.status), option_word("--loop", args.loop)}),
      filter.limit, kGoalsPage, *page);
  if (context.globals.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const Goal& goal : *goals) list.push_back(goal_json(goal));
    *context.out << json_text(list) << '\n';
    tell_rest(context, *page, "goals", next_page);
    return kExitOk;
  }
  if (goals->empty() && filter.offset > 0) {
    *context.out << "no goals at offset " << filter.offset << '\n';
    return kExitOk;
  }
  if (goals->empty()) {
    *context.out << "no goals; create one with: orrery goal create --loop L --objective TEXT\n";
    return kExitOk;
  }
  auto handles = column_handles(*opened->store, IdTable::kGoals, *goals, &Goal::id);
  if (!handles) return handles.error();
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < goals->size(); ++i) {
    const Goal& goal = (*goals)[i];
    const PlanRollup rollup = plan_rollup(goal.plan);
    rows.push_back({(*handles)[i], goal_status_name(goal.status), target_text(goal),
                    budget_bar(goal.tokens_used, goal.token_budget), std::to_string(goal.turns),
                    std::to_string(rollup.complete) + "/" + std::to_string(rollup.total),
                    shortened(goal.objective, 60)});
  }
  print_table(*context.out, {"ID", "STATUS", "TARGET", "BUDGET", "TURNS", "PLAN", "OBJECTIVE"},
              rows);
  tell_rest(context, *page, "goals", next_page);
  return kExitOk;
}

Result<int> show_goal_command(const GoalArgs& args, const Context& context) {
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  auto goal = opened->store->resolve_goal(args.goal);
  if (!goal) return goal.error();
  print_goal(context, *goal);
  return kExitOk;
}

Result<int> goal_turns_command(const GoalArgs& args, const Context& context) {
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  auto goal = opened->store->resolve_goal(args.goal);
  if (!goal) return goal.error();
  auto limit = bounded(args.limit, "--limit", 1, kMaxTurnsShown);
  if (!limit) return limit.error();
  const int shown_at_most = args.limit ? *limit : kTurnsShown;
  auto turns = opened->store->list_turns(goal->id, shown_at_most);
  if (!turns) return turns.error();
  // The last turns are shown: what is left out comes before them, and a larger
  // --limit shows it.
  auto page = listed_page(0, shown_at_most, turns->size(),
                          [&] { return opened->store->count_turns(goal->id); });
  if (!page) return page.error();
  const std::string all_turns =
      command_of("orrery goal turns",
                 {operand_word(goal->id),
                  option_word("--limit", std::to_string(std::min<std::int64_t>(
                                             kMaxTurnsShown, page->rest + page->shown)))});
  if (context.globals.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const GoalTurn& turn : *turns) list.push_back(turn_json(turn));
    *context.out << json_text(list) << '\n';
    tell_rest(context, *page, "earlier turns", all_turns);
    return kExitOk;
  }
  if (turns->empty()) {
    *context.out << "no turns yet\n";
    return kExitOk;
  }
  auto loop_handles =
      column_handles(*opened->store, IdTable::kRuns, *turns, &GoalTurn::loop_run_id);
  if (!loop_handles) return loop_handles.error();
  auto workflow_handles =
      column_handles(*opened->store, IdTable::kWorkflowRuns, *turns, &GoalTurn::workflow_run_id);
  if (!workflow_handles) return workflow_handles.error();
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < turns->size(); ++i) {
    const GoalTurn& turn = (*turns)[i];
    // What the turn was: a loop's run, a workflow run, or one step's
    // attempt; the handle is typed back as shown (`orrery show RUN`,
    // `orrery workflow show-run RUN`).
    const std::string run =
        !turn.step_id.empty()           ? "step " + turn.step_id + " of " + (*workflow_handles)[i]
        : !turn.workflow_run_id.empty() ? "workflow run " + (*workflow_handles)[i]
        : !turn.loop_run_id.empty()     ? "run " + (*loop_handles)[i]
                                        : "-";
    std::string note = turn.update_error.empty() ? turn.summary : "refused: " + turn.update_error;
    rows.push_back({std::to_string(turn.turn) + (turn.spent ? "" : " (not spent)"), run,
                    run_status_name(turn.run_status), turn.node_key.empty() ? "-" : turn.node_key,
                    format_count(turn.tokens_used), goal_status_name(turn.status),
                    shortened(note, 80)});
  }
  print_table(*context.out, {"TURN", "RUN", "RUN STATUS", "NODE", "TOKENS", "GOAL", "NOTE"}, rows);
  tell_rest(context, *page, "earlier turns", all_turns);
  return kExitOk;
}

Result<int> pause_goal_command(const GoalArgs& args, const Context& context) {
  return change_and_print(args, context, &ops::pause_goal);
}

Result<int> resume_goal_command(const GoalArgs& args, const Context& context) {
  return change_and_print(args, context, &ops::resume_goal);
}

Result<int> cancel_goal_command(const GoalArgs& args, const Context& context) {
  return change_and_print(args, context, &ops::cancel_goal);
}

Result<int> goal_budget_command(const GoalArgs& args, const Context& context) {
  if (args.add.has_value() == args.set.has_value()) {
    return usage_error("give one of --add TOKENS or --set TOKENS");
  }
  auto amount = parse_token_amount(args.add ? *args.add : *args.set, args.add ? "--add" : "--set");
  if (!amount) return amount.error();
  auto opened = open_store(context);
  if (!opened) return opened.error();
  return print_changed(
      context, ops::change_goal_budget({*opened->store, opened->home, context.now}, args.goal,
                                       {args.add.has_value(), *amount}));
}

Result<int> goal_plan_command(const GoalArgs& args, const Context& context) {
  if (args.plan_file.empty() == args.node.empty()) {
    return usage_error("give --set FILE (a new plan) or --node KEY --status S");
  }
  if (!args.plan_file.empty()) {
    auto plan = plan_file(args.plan_file);
    if (!plan) return plan.error();
    auto opened = open_store(context);
    if (!opened) return opened.error();
    return print_changed(
        context,
        ops::replace_goal_plan({*opened->store, opened->home, context.now}, args.goal, *plan));
  }
  if (args.node_status.empty()) return usage_error("--node KEY needs --status S");
  auto status = parse_node_status(args.node_status);
  if (!status) return usage_error("--status: " + status.error().message);
  auto opened = open_store(context);
  if (!opened) return opened.error();
  return print_changed(
      context, ops::set_goal_node_status({*opened->store, opened->home, context.now}, args.goal,
                                         args.node, *status));
}

}  // namespace orrery::cli
