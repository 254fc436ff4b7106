// LoopSpec: what a user asked for with `orrery add`, as text, and its
// validation into a Loop.
//
// Invariants of a built Loop: exactly one schedule and one target; every
// duration within its maximum (core/limits.h), every time, zone and cron
// valid; a time without a zone designator is wall time in --tz (else the
// given local zone); the name follows the name rules and all text is valid
// UTF-8 (core/text.h); every path is absolute (relative ones and `~`
// resolved as core/user_path.h reads them); a command with spaces and no
// shell refused with a hint; lease at least 1 s; catch-up limit 1-1000;
// --machine labels follow the rules of runner labels
// (core/runner_labels.h); no option that cannot take effect (docs/cli.md,
// "Refused combinations"); the first slot computed from the schedule and
// before the loop expires. Errors name the option and the value.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/loop.h"
#include "core/result.h"
#include "core/timezone.h"
#include "core/user_path.h"

namespace orrery {

inline constexpr DurationMs kMinimumLeaseMs = 1000;

// Every member has a default initialiser: a spec is written with designated
// initialisers naming only what it sets, each constructed from its value.
struct LoopSpec {
  std::string name{};
  std::string description{};
  // Schedule: exactly one of cron, every, at, dynamic.
  std::string cron{};
  std::string every{};
  bool fixed_delay = false;
  std::string at{};
  bool dynamic = false;
  std::string min{};
  std::string max{};
  std::string tz{};
  std::string jitter{};
  // Policies.
  std::string catch_up{};
  std::optional<int> catch_up_limit{};
  std::string catch_up_window{};
  std::string overlap{};
  std::optional<int> max_attempts{};
  std::string retry_delay{};
  std::string retry_backoff{};
  std::string lease{};
  std::string timeout{};
  std::string idle_timeout{};
  std::string expires{};
  std::string cwd{};
  std::vector<std::string> env{};         // K=V
  std::vector<std::string> secret_env{};  // K=V; values leave the Loop (see secret_values)
  std::vector<std::string> machine{};     // LABEL=VALUE
  // Target: exactly one of command (argv), shell, agent, workflow.
  std::vector<std::string> command{};
  std::string shell{};
  std::string agent{};
  std::string prompt{};  // agent options, accepted once agent targets exist
  std::string prompt_file{};
  std::string model{};
  std::string effort{};
  std::string permission_mode{};
  std::string sandbox{};
  std::string agent_name{};        // a named agent of the provider
  std::string config_isolation{};  // safe | none
  std::vector<std::string> add_dirs{};
  std::vector<std::string> agent_args{};  // extra arguments for the agent CLI
  std::string auth_profile{};
  std::string workflow{};
  std::string input{};      // workflow input
  std::string log_limit{};  // --log-limit SIZE
  std::string feed{};       // --feed ROUTE: the route its succeeded runs feed
  bool no_feed = false;     // edit --no-feed: feed no route
  // What paths (--cwd, --add-dir, --prompt-file) are resolved against
  // (core/user_path.h): the working directory of `add` and the home
  // directories `~` names. Empty: relative paths are refused.
  PathBase paths{};
};

struct BuiltLoop {
  Loop loop;
  std::vector<EnvVar> secret_values;  // kept out of the store
};

// `local` is the zone for times without a designator and for cron without --tz.
Result<BuiltLoop> build_loop(const LoopSpec& spec, const std::string& id, TimeMs now,
                             const TimeZone& local);

// Parses K=V (K a valid environment variable name).
Result<EnvVar> parse_assignment(const std::string& text, const char* option);

}  // namespace orrery
