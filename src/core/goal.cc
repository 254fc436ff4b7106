#include "core/goal.h"

#include "core/enum_names.h"
#include "core/text.h"

namespace orrery {
namespace {

constexpr NameTable<GoalStatus, 7> kGoalStatuses{{
    {GoalStatus::kActive, "active"},
    {GoalStatus::kPaused, "paused"},
    {GoalStatus::kBlocked, "blocked"},
    {GoalStatus::kUsageLimited, "usage_limited"},
    {GoalStatus::kBudgetLimited, "budget_limited"},
    {GoalStatus::kComplete, "complete"},
    {GoalStatus::kCancelled, "cancelled"},
}};

constexpr NameTable<NodeStatus, 5> kNodeStatuses{{
    {NodeStatus::kPending, "pending"},
    {NodeStatus::kActive, "active"},
    {NodeStatus::kBlocked, "blocked"},
    {NodeStatus::kComplete, "complete"},
    {NodeStatus::kCancelled, "cancelled"},
}};

constexpr NameTable<DriveMode, 3> kDriveModes{{
    {DriveMode::kReady, "ready"},
    {DriveMode::kAgent, "agent"},
    {DriveMode::kOff, "off"},
}};

constexpr NameTable<GoalTargetType, 3> kTargetTypes{{
    {GoalTargetType::kLoop, "loop"},
    {GoalTargetType::kWorkflow, "workflow"},
    {GoalTargetType::kStep, "step"},
}};

// Whether the text shows anything: a code point other than white space
// (ASCII and Unicode's spaces) and invisible format characters (zero-width
// spaces and joiners, directional marks, the byte order mark). Valid UTF-8.
bool has_visible_character(std::string_view text) {
  for (size_t at = 0; at < text.size();) {
    const unsigned char lead = static_cast<unsigned char>(text[at]);
    const size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    std::uint32_t code = length == 1 ? lead : lead & (0x7F >> length);
    for (size_t i = 1; i < length && at + i < text.size(); ++i)
      code = (code << 6) | (static_cast<unsigned char>(text[at + i]) & 0x3F);
    at += length;
    const bool invisible =
        code == ' ' || code == '\n' || code == '\t' || code == 0xA0 ||
        (code >= 0x2000 && code <= 0x200F) || (code >= 0x2028 && code <= 0x202F) ||
        (code >= 0x205F && code <= 0x2064) || code == 0x3000 || code == 0xFEFF || code == 0x180E;
    if (!invisible) return true;
  }
  return false;
}

}  // namespace

const char* goal_status_name(GoalStatus status) { return enum_name(status, kGoalStatuses); }
Result<GoalStatus> parse_goal_status(std::string_view text) {
  return parse_enum_name(text, kGoalStatuses, "goal status");
}
const char* node_status_name(NodeStatus status) { return enum_name(status, kNodeStatuses); }
Result<NodeStatus> parse_node_status(std::string_view text) {
  return parse_enum_name(text, kNodeStatuses, "node status");
}
const char* drive_mode_name(DriveMode mode) { return enum_name(mode, kDriveModes); }
Result<DriveMode> parse_drive_mode(std::string_view text) {
  return parse_enum_name(text, kDriveModes, "drive mode");
}
const char* goal_target_type_name(GoalTargetType type) { return enum_name(type, kTargetTypes); }

bool is_terminal(GoalStatus status) {
  return status == GoalStatus::kBudgetLimited || status == GoalStatus::kComplete ||
         status == GoalStatus::kCancelled;
}

std::string goal_target_key(const GoalTarget& target) {
  switch (target.type) {
    case GoalTargetType::kLoop:
      return "loop:" + target.loop_id;
    case GoalTargetType::kWorkflow:
      return "workflow:" + target.workflow_name;
    case GoalTargetType::kStep:
      return "step:" + target.workflow_name + "/" + target.step_id;
  }
  return "";
}

Status check_goal_transition(const Goal& goal, GoalStatus to) {
  if (goal.status == to) return Ok{};
  if (is_terminal(goal.status)) {
    std::string message = "goal " + goal.id + " is " + goal_status_name(goal.status) +
                          ", which is final: it cannot become " + goal_status_name(to);
    if (goal.status == GoalStatus::kBudgetLimited) {
      message += " (raise its budget with `orrery goal budget " + goal.id + " --add TOKENS`)";
    }
    return conflict_error(message);
  }
  return Ok{};
}

Result<std::string> check_objective(std::string_view text) {
  if (auto utf8 = check_utf8(text, "the objective"); !utf8) return utf8.error();
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a file's byte order mark
  const std::string objective(trim(text));
  if (auto text = check_user_text(objective, "the objective", TextLines::kMany); !text)
    return text.error();
  if (!has_visible_character(objective)) {
    return usage_error("the objective is empty: say what the goal is");
  }
  const size_t characters = count_code_points(objective);
  if (characters > kMaxObjectiveCharacters) {
    return usage_error("the objective has " + std::to_string(characters) + " characters; at most " +
                       std::to_string(kMaxObjectiveCharacters) + " are accepted");
  }
  return objective;
}

Result<Goal> change_budget(Goal goal, std::int64_t budget, TimeMs now) {
  if (budget <= 0) {
    return usage_error("a token budget must be positive, not " + std::to_string(budget));
  }
  if (goal.status == GoalStatus::kComplete || goal.status == GoalStatus::kCancelled) {
    return conflict_error("goal " + goal.id + " is " + goal_status_name(goal.status) +
                          ", which is final: its budget cannot change");
  }
  goal.token_budget = budget;
  goal.updated_at = now;
  if (goal.status == GoalStatus::kBudgetLimited && budget > goal.tokens_used) {
    goal.status = GoalStatus::kActive;
    goal.status_reason = "budget raised to " + std::to_string(budget) + " tokens";
  } else if (budget <= goal.tokens_used) {
    goal.status = GoalStatus::kBudgetLimited;
    goal.status_reason = "the budget of " + std::to_string(budget) + " tokens is used up (" +
                         std::to_string(goal.tokens_used) + " used)";
  }
  return goal;
}

std::optional<std::int64_t> tokens_left(const Goal& goal) {
  if (!goal.token_budget) return std::nullopt;
  return *goal.token_budget > goal.tokens_used ? *goal.token_budget - goal.tokens_used : 0;
}

}  // namespace orrery
