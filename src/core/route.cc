#include "core/route.h"

#include "core/duration.h"
#include "core/enum_names.h"
#include "core/limits.h"
#include "core/text.h"

namespace orrery {
namespace {

constexpr NameTable<RouteStatus, 2> kStatuses{{
    {RouteStatus::kActive, "active"},
    {RouteStatus::kPaused, "paused"},
}};

Status check_count(int value, int least, int most, const char* option) {
  if (value >= least && value <= most) return Ok{};
  return usage_error(std::string(option) + " " + std::to_string(value) + " is out of range; give " +
                     std::to_string(least) + " to " + std::to_string(most) +
                     (least == 0 ? " (0: unlimited)" : ""));
}

Status check_aging(DurationMs aging) {
  if (aging == 0 || (aging >= kMinPriorityAgingMs && aging <= kMaxPriorityAgingMs)) return Ok{};
  return usage_error("--priority-aging " + format_duration(aging) + " is out of range; give " +
                     format_duration(kMinPriorityAgingMs) + " to " +
                     format_duration(kMaxPriorityAgingMs) + ", or 0 for no aging");
}

}  // namespace

const char* route_status_name(RouteStatus status) { return enum_name(status, kStatuses); }
Result<RouteStatus> parse_route_status(std::string_view text) {
  return parse_enum_name(text, kStatuses, "route status");
}

namespace {

Status check_webhook_secret_env(const std::string& name) {
  if (name.empty() || (name.size() <= kMaxEnvNameBytes && is_env_name(name))) return Ok{};
  return usage_error("--webhook-secret-env '" + visible(name) +
                     "': expected the name of an environment variable (letters, digits and _, "
                     "not starting with a digit, at most " +
                     std::to_string(kMaxEnvNameBytes) + " bytes), or 'none'");
}

}  // namespace

Status check_route(const Route& route) {
  if (auto named = check_name(route.name, "route name"); !named) return named;
  if (auto valid = check_user_text(route.description, "--description", TextLines::kMany); !valid)
    return valid;
  if (route.description.size() > kMaxRouteDescriptionBytes) {
    return usage_error("--description is " + std::to_string(route.description.size()) +
                       " bytes long; at most " + std::to_string(kMaxRouteDescriptionBytes) +
                       " are allowed");
  }
  if (auto ok = check_count(route.max_running, 1, kMaxRouteRunning, "--max-running"); !ok) {
    return ok;
  }
  if (auto ok = check_count(route.max_per_project, 0, kMaxRouteRunning, "--max-per-project"); !ok) {
    return ok;
  }
  if (auto ok = check_count(route.max_per_group, 0, kMaxRouteRunning, "--max-per-group"); !ok) {
    return ok;
  }
  if (auto ok = check_count(route.max_attempts, 1, kMaxItemAttempts, "--max-attempts"); !ok) {
    return ok;
  }
  if (route.retry_delay_ms < 0 || route.retry_delay_ms > kMaxRetryDelayMs) {
    return usage_error("--retry-delay " + format_duration(route.retry_delay_ms) +
                       " is out of range; give 0s to " + format_duration(kMaxRetryDelayMs));
  }
  if (auto named = check_webhook_secret_env(route.webhook_secret_env); !named) return named;
  if (auto valid = check_utf8(route.cwd, "--cwd"); !valid) return valid;
  if (!route.cwd.empty() && (route.cwd[0] != '/' || route.cwd.size() > kMaxRouteCwdBytes ||
                             route.cwd.find('\0') != std::string::npos)) {
    return usage_error("--cwd '" + visible(route.cwd) + "': expected an absolute path of at most " +
                       std::to_string(kMaxRouteCwdBytes) + " bytes");
  }
  return check_aging(route.priority_aging_ms);
}

}  // namespace orrery
