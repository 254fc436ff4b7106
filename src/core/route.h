// Routes (docs/admission.md): a named entry point for work items. A route
// names the workflow version that runs for each of its items and the limits
// admission keeps: how many of its items may hold capacity (admitted or
// running) at once, how many of one project or group may (counted across
// every route: a project is a repository, whoever feeds it), how often an
// item is attempted and how its retries wait, and how fast a waiting item's
// priority ages.
//
// Invariants (check_route): the name follows the name rules; max_running is
// 1..kMaxRouteRunning; the per-project and per-group limits are
// 0 (unlimited)..kMaxRouteRunning; max_attempts 1..kMaxItemAttempts; the
// retry delay 0..kMaxRetryDelayMs; the priority aging 0 (none) or
// kMinPriorityAgingMs..kMaxPriorityAgingMs; the working directory absolute
// (or empty), UTF-8 of at most kMaxRouteCwdBytes; the webhook secret's
// variable empty or an environment variable's name ([A-Za-z_][A-Za-z0-9_]*,
// at most kMaxEnvNameBytes).
#pragma once

#include <string>
#include <string_view>

#include "core/loop.h"
#include "core/result.h"
#include "core/time.h"

namespace orrery {

inline constexpr int kMaxRouteRunning = 10'000;
inline constexpr int kMaxItemAttempts = 100;
inline constexpr int kDefaultItemAttempts = 3;
inline constexpr DurationMs kDefaultItemRetryDelayMs = 60'000;
inline constexpr DurationMs kMinPriorityAgingMs = 1'000;
inline constexpr DurationMs kMaxPriorityAgingMs = 365LL * 24 * 3600 * 1000;
inline constexpr std::size_t kMaxRouteDescriptionBytes = 4096;
inline constexpr std::size_t kMaxRouteCwdBytes = 4096;
inline constexpr std::size_t kMaxEnvNameBytes = 128;

enum class RouteStatus { kActive, kPaused };
const char* route_status_name(RouteStatus status);
Result<RouteStatus> parse_route_status(std::string_view text);

struct Route {
  std::string id;
  std::string name;
  std::string description;
  // The workflow version each item runs (a version's id), and its name and
  // number as they were when the route was added or last edited.
  std::string workflow_id;
  std::string workflow_name;
  int workflow_version = 1;
  RouteStatus status = RouteStatus::kActive;
  int max_running = 1;
  int max_per_project = 0;  // 0: unlimited
  int max_per_group = 0;    // 0: unlimited
  int max_attempts = kDefaultItemAttempts;
  DurationMs retry_delay_ms = kDefaultItemRetryDelayMs;
  RetryBackoff retry_backoff = RetryBackoff::kFixed;
  DurationMs priority_aging_ms = 0;  // 0: no aging
  // The working directory of its items' runs: an absolute path, or empty
  // for the daemon's own.
  std::string cwd;
  // The environment variable of the server (`orrery serve`) that holds the
  // secret its webhooks are signed with (X-Hub-Signature-256), or empty when
  // items are posted unsigned. The name is stored, never the secret.
  std::string webhook_secret_env;
  TimeMs created_at = 0;
  TimeMs updated_at = 0;
  friend bool operator==(const Route&, const Route&) = default;
};

// Every invariant above; the error names the option and the value given.
Status check_route(const Route& route);

}  // namespace orrery
