#include "core/loop_spec.h"

#include "core/duration.h"

namespace orrery {
namespace {

// An optional duration option: empty text means "not given".
Result<std::optional<DurationMs>> optional_duration(const std::string& text, const char* option) {
  if (text.empty()) return std::optional<DurationMs>{};
  auto parsed = parse_duration(text);
  if (!parsed) return usage_error(std::string(option) + ": " + parsed.error().message);
  return std::optional<DurationMs>{*parsed};
}

Status assign_duration(const std::string& text, const char* option, DurationMs* out) {
  auto parsed = optional_duration(text, option);
  if (!parsed) return parsed.error();
  if (parsed->has_value()) *out = **parsed;
  return Ok{};
}

Status assign_optional(const std::string& text, const char* option,
                       std::optional<DurationMs>* out) {
  auto parsed = optional_duration(text, option);
  if (!parsed) return parsed.error();
  *out = *parsed;
  return Ok{};
}

bool valid_env_name(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
      return false;
    }
  }
  return true;
}

Result<Schedule> build_schedule(const LoopSpec& spec, TimeMs now, const TimeZone& zone) {
  const int given = !spec.cron.empty() + !spec.every.empty() + !spec.at.empty() + spec.dynamic;
  if (given != 1) {
    return usage_error(given == 0 ? "a schedule is required: --cron EXPR, --every DURATION, --at "
                                    "TIME or --dynamic"
                                  : "give only one schedule: --cron, --every, --at or --dynamic");
  }
  Schedule schedule;
  if (!spec.cron.empty()) {
    schedule.type = ScheduleType::kCron;
    schedule.expression = spec.cron;
    schedule.timezone = spec.tz.empty() ? zone.name() : spec.tz;
  } else if (!spec.every.empty()) {
    auto every = parse_duration(spec.every);
    if (!every) return usage_error("--every: " + every.error().message);
    schedule.type = ScheduleType::kInterval;
    schedule.every_ms = *every;
    schedule.anchor = spec.fixed_delay ? IntervalAnchor::kFixedDelay : IntervalAnchor::kFixedRate;
  } else if (!spec.at.empty()) {
    auto at = parse_time(spec.at, now, zone);
    if (!at) return usage_error("--at: " + at.error().message);
    if (*at <= now) return usage_error("--at " + spec.at + " is not in the future");
    schedule.type = ScheduleType::kOnce;
    schedule.at = *at;
  } else {
    schedule.type = ScheduleType::kDynamic;
    if (auto s = assign_duration(spec.min, "--min", &schedule.min_ms); !s) return s.error();
    if (auto s = assign_duration(spec.max, "--max", &schedule.max_ms); !s) return s.error();
  }
  if (spec.fixed_delay && spec.every.empty()) return usage_error("--fixed-delay needs --every");
  if ((!spec.min.empty() || !spec.max.empty()) && !spec.dynamic) {
    return usage_error("--min and --max need --dynamic");
  }
  if (!spec.tz.empty() && spec.cron.empty()) return usage_error("--tz applies to --cron only");
  if (auto s = assign_duration(spec.jitter, "--jitter", &schedule.jitter_ms); !s) return s.error();
  return schedule;
}

Result<std::vector<EnvVar>> parse_env(const LoopSpec& spec) {
  std::vector<EnvVar> env;
  for (const std::string& text : spec.env) {
    auto pair = parse_assignment(text, "--env");
    if (!pair) return pair.error();
    env.push_back(*pair);
  }
  return env;
}

Result<Target> build_agent_target(const LoopSpec& spec) {
  auto provider = parse_provider(spec.agent);
  if (!provider) return usage_error("--agent: " + provider.error().message);
  AgentTarget agent;
  agent.provider = *provider;
  agent.prompt = spec.prompt;
  agent.prompt_file = spec.prompt_file;
  agent.model = spec.model;
  agent.variant = spec.effort;
  agent.agent = spec.agent_name;
  agent.permission_mode = spec.permission_mode;
  agent.sandbox = spec.sandbox;
  agent.config_isolation = spec.config_isolation;
  agent.add_dirs = spec.add_dirs;
  agent.extra_args = spec.agent_args;
  agent.cwd = spec.cwd;
  agent.auth_profile = spec.auth_profile;
  if (auto valid = validate_agent(agent); !valid) return valid.error();
  Target target;
  target.type = TargetType::kAgent;
  target.cwd = spec.cwd;
  auto env = parse_env(spec);
  if (!env) return env.error();
  target.env = std::move(*env);
  target.agent = std::move(agent);
  return target;
}

Result<Target> build_target(const LoopSpec& spec) {
  const int given =
      !spec.command.empty() + !spec.shell.empty() + !spec.agent.empty() + !spec.workflow.empty();
  if (given != 1) {
    return usage_error(given == 0 ? "a target is required: -- EXECUTABLE [ARGS...], --shell "
                                    "'COMMAND LINE', --agent PROVIDER or --workflow NAME"
                                  : "give only one target: -- EXECUTABLE, --shell, --agent or "
                                    "--workflow");
  }
  const bool agent_options =
      !spec.prompt.empty() || !spec.prompt_file.empty() || !spec.model.empty() ||
      !spec.effort.empty() || !spec.permission_mode.empty() || !spec.sandbox.empty() ||
      !spec.agent_name.empty() || !spec.config_isolation.empty() || !spec.add_dirs.empty() ||
      !spec.agent_args.empty() || !spec.auth_profile.empty();
  if (agent_options && spec.agent.empty()) {
    return usage_error(
        "--prompt, --prompt-file, --model, --effort, --permission-mode, "
        "--sandbox, --agent-name, --config-isolation, --add-dir, --agent-arg and "
        "--auth-profile need --agent PROVIDER");
  }
  if (!spec.input.empty() && spec.workflow.empty()) return usage_error("--input needs --workflow");
  if (!spec.agent.empty()) return build_agent_target(spec);
  if (!spec.workflow.empty()) {
    return usage_error("--workflow " + spec.workflow +
                       ": workflow targets are not available in this version of orrery yet");
  }
  Target target;
  if (!spec.shell.empty()) {
    target.shell = true;
    target.command_line = spec.shell;
  } else {
    const std::string& executable = spec.command.front();
    if (executable.empty()) return usage_error("the executable after -- cannot be empty");
    if (spec.command.size() == 1 && executable.find(' ') != std::string::npos) {
      return usage_error("command '" + executable +
                         "' contains spaces: pass the arguments separately (-- " +
                         executable.substr(0, executable.find(' ')) +
                         " ...) or run it through a shell with --shell '" + executable + "'");
    }
    target.argv = spec.command;
  }
  target.cwd = spec.cwd;
  auto env = parse_env(spec);
  if (!env) return env.error();
  target.env = std::move(*env);
  return target;
}

Status apply_policies(const LoopSpec& spec, TimeMs now, const TimeZone& zone, Loop& loop) {
  if (!spec.catch_up.empty()) {
    auto mode = parse_catch_up_mode(spec.catch_up);
    if (!mode) return usage_error("--catch-up: " + mode.error().message);
    loop.catch_up.mode = *mode;
  }
  if (spec.catch_up_limit) {
    if (*spec.catch_up_limit < 1 || *spec.catch_up_limit > kMaxCatchUpLimit) {
      return usage_error("--catch-up-limit " + std::to_string(*spec.catch_up_limit) +
                         " out of range 1-" + std::to_string(kMaxCatchUpLimit));
    }
    loop.catch_up.limit = *spec.catch_up_limit;
  }
  if (auto s = assign_optional(spec.catch_up_window, "--catch-up-window", &loop.catch_up.window);
      !s) {
    return s;
  }
  if (auto valid = validate_catch_up(loop.catch_up); !valid) return valid;
  if (!spec.overlap.empty()) {
    auto overlap = parse_overlap(spec.overlap);
    if (!overlap) return usage_error("--overlap: " + overlap.error().message);
    loop.overlap = *overlap;
  }
  if (spec.max_attempts) {
    if (*spec.max_attempts < 1 || *spec.max_attempts > 100) {
      return usage_error("--max-attempts " + std::to_string(*spec.max_attempts) +
                         " out of range 1-100");
    }
    loop.max_attempts = *spec.max_attempts;
  }
  if (auto s = assign_duration(spec.retry_delay, "--retry-delay", &loop.retry_delay_ms); !s)
    return s;
  if (!spec.retry_backoff.empty()) {
    auto backoff = parse_backoff(spec.retry_backoff);
    if (!backoff) return usage_error("--retry-backoff: " + backoff.error().message);
    loop.retry_backoff = *backoff;
  }
  if (auto s = assign_duration(spec.lease, "--lease", &loop.lease_ms); !s) return s;
  if (loop.lease_ms < kMinimumLeaseMs) {
    return usage_error("--lease " + spec.lease + " is shorter than the minimum of 1s");
  }
  if (auto s = assign_optional(spec.timeout, "--timeout", &loop.timeout_ms); !s) return s;
  if (auto s = assign_optional(spec.idle_timeout, "--idle-timeout", &loop.idle_timeout_ms); !s) {
    return s;
  }
  if (!spec.expires.empty()) {
    auto expires = parse_time(spec.expires, now, zone);
    if (!expires) return usage_error("--expires: " + expires.error().message);
    if (*expires <= now) return usage_error("--expires " + spec.expires + " is not in the future");
    loop.expires_at = *expires;
  }
  for (const std::string& text : spec.machine) {
    auto label = parse_assignment(text, "--machine");
    if (!label) return label.error();
    loop.machine.push_back(*label);
  }
  return Ok{};
}

}  // namespace

Result<EnvVar> parse_assignment(const std::string& text, const char* option) {
  const size_t equals = text.find('=');
  const std::string key = text.substr(0, equals);
  if (equals == std::string::npos || key.empty()) {
    return usage_error(std::string(option) + " '" + text + "': expected KEY=VALUE");
  }
  if (std::string_view(option) != "--machine" && !valid_env_name(key)) {
    return usage_error(std::string(option) + " '" + text + "': '" + key +
                       "' is not a valid environment variable name (letters, digits, _; not "
                       "starting with a digit)");
  }
  return EnvVar{key, text.substr(equals + 1)};
}

Result<BuiltLoop> build_loop(const LoopSpec& spec, const std::string& id, TimeMs now,
                             const TimeZone& local) {
  if (spec.name.empty()) return usage_error("a loop name cannot be empty");
  BuiltLoop built;
  Loop& loop = built.loop;
  loop.id = id;
  loop.name = spec.name;
  loop.description = spec.description;
  loop.created_at = loop.updated_at = now;
  auto schedule = build_schedule(spec, now, local);
  if (!schedule) return schedule.error();
  loop.schedule = *schedule;
  auto series = SlotSeries::compile(loop.schedule, id);
  if (!series) return series.error();
  auto first = series->initial(now);
  if (!first) return first.error();
  loop.next_run_at = *first;
  auto target = build_target(spec);
  if (!target) return target.error();
  loop.target = *target;
  for (const std::string& text : spec.secret_env) {
    auto pair = parse_assignment(text, "--secret-env");
    if (!pair) return pair.error();
    if (pair->second.find('\n') != std::string::npos) {
      return usage_error("--secret-env " + pair->first + ": a value cannot contain a newline");
    }
    loop.target.secret_env.push_back(pair->first);
    built.secret_values.push_back(*pair);
  }
  if (auto applied = apply_policies(spec, now, local, loop); !applied) return applied.error();
  return built;
}

}  // namespace orrery
