#include "core/loop.h"

#include "core/enum_names.h"

namespace orrery {
namespace {

constexpr NameTable<LoopStatus, 4> kStatuses{{
    {LoopStatus::kActive, "active"},
    {LoopStatus::kPaused, "paused"},
    {LoopStatus::kExpired, "expired"},
    {LoopStatus::kCompleted, "completed"},
}};
constexpr NameTable<OverlapPolicy, 4> kOverlaps{{
    {OverlapPolicy::kSkip, "skip"},
    {OverlapPolicy::kQueue, "queue"},
    {OverlapPolicy::kAllow, "allow"},
    {OverlapPolicy::kReplace, "replace"},
}};
constexpr NameTable<RetryBackoff, 2> kBackoffs{{
    {RetryBackoff::kFixed, "fixed"},
    {RetryBackoff::kExponential, "exponential"},
}};
constexpr NameTable<TargetType, 3> kTargets{{
    {TargetType::kCommand, "command"},
    {TargetType::kAgent, "agent"},
    {TargetType::kWorkflow, "workflow"},
}};

}  // namespace

const char* loop_status_name(LoopStatus status) { return enum_name(status, kStatuses); }
Result<LoopStatus> parse_loop_status(std::string_view text) {
  return parse_enum_name(text, kStatuses, "loop status");
}
const char* overlap_name(OverlapPolicy policy) { return enum_name(policy, kOverlaps); }
Result<OverlapPolicy> parse_overlap(std::string_view text) {
  return parse_enum_name(text, kOverlaps, "overlap policy");
}
const char* backoff_name(RetryBackoff backoff) { return enum_name(backoff, kBackoffs); }
Result<RetryBackoff> parse_backoff(std::string_view text) {
  return parse_enum_name(text, kBackoffs, "retry backoff");
}
const char* target_type_name(TargetType type) { return enum_name(type, kTargets); }

ScheduleState schedule_state(const Loop& loop) {
  return ScheduleState{loop.status,
                       loop.archived,
                       loop.archived_from_status,
                       loop.next_run_at,
                       loop.retry_scheduled_for,
                       loop.series_resume_at,
                       loop.missed_count};
}

void set_schedule_state(Loop& loop, const ScheduleState& state) {
  loop.status = state.status;
  loop.archived = state.archived;
  loop.archived_from_status = state.archived_from_status;
  loop.next_run_at = state.next_run_at;
  loop.retry_scheduled_for = state.retry_scheduled_for;
  loop.series_resume_at = state.series_resume_at;
  loop.missed_count = state.missed_count;
}

std::string cooldown_account(const Target& target) {
  if (target.type != TargetType::kAgent || !target.agent) return "";
  std::string account = provider_name(target.agent->provider);
  if (!target.agent->auth_profile.empty()) account += ":" + target.agent->auth_profile;
  return account;
}

}  // namespace orrery
