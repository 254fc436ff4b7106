#include "core/loop_spec.h"

#include "core/byte_size.h"
#include "core/duration.h"
#include "core/limits.h"
#include "core/runner_labels.h"
#include "core/text.h"

namespace orrery {
namespace {

// An optional duration option: empty text means "not given".
Result<std::optional<DurationMs>> optional_duration(const std::string& text, const char* option,
                                                    DurationMs maximum) {
  if (text.empty()) return std::optional<DurationMs>{};
  auto parsed = parse_duration_option(text, option, maximum);
  if (!parsed) return parsed.error();
  return std::optional<DurationMs>{*parsed};
}

Status assign_duration(const std::string& text, const char* option, DurationMs maximum,
                       DurationMs* out) {
  auto parsed = optional_duration(text, option, maximum);
  if (!parsed) return parsed.error();
  if (parsed->has_value()) *out = **parsed;
  return Ok{};
}

Status assign_optional(const std::string& text, const char* option, DurationMs maximum,
                       std::optional<DurationMs>* out) {
  auto parsed = optional_duration(text, option, maximum);
  if (!parsed) return parsed.error();
  *out = *parsed;
  return Ok{};
}

// Every piece of text the spec would store is valid UTF-8; its description
// is prose (core/text.h, check_user_text).
Status check_text_fields(const LoopSpec& spec) {
  if (auto prose = check_user_text(spec.description, "--description", TextLines::kMany); !prose)
    return prose;
  const std::pair<const char*, const std::string*> single[] = {
      {"--description", &spec.description},
      {"--cron", &spec.cron},
      {"--tz", &spec.tz},
      {"--cwd", &spec.cwd},
      {"--shell", &spec.shell},
      {"--agent", &spec.agent},
      {"--prompt", &spec.prompt},
      {"--prompt-file", &spec.prompt_file},
      {"--model", &spec.model},
      {"--effort", &spec.effort},
      {"--permission-mode", &spec.permission_mode},
      {"--sandbox", &spec.sandbox},
      {"--agent-name", &spec.agent_name},
      {"--config-isolation", &spec.config_isolation},
      {"--auth-profile", &spec.auth_profile},
      {"--workflow", &spec.workflow},
      {"--input", &spec.input},
      {"--feed", &spec.feed}};
  for (const auto& [option, text] : single) {
    if (auto valid = check_utf8(*text, option); !valid) return valid;
  }
  const std::pair<const char*, const std::vector<std::string>*> lists[] = {
      {"--env", &spec.env},          {"--secret-env", &spec.secret_env},
      {"--machine", &spec.machine},  {"the command after --", &spec.command},
      {"--add-dir", &spec.add_dirs}, {"--agent-arg", &spec.agent_args}};
  for (const auto& [option, texts] : lists) {
    for (const std::string& text : *texts) {
      if (auto valid = check_utf8(text, option); !valid) return valid;
    }
  }
  return Ok{};
}

Result<TimeZone> zone_of(const LoopSpec& spec, const TimeZone& local) {
  if (spec.tz.empty()) return local;
  auto named = TimeZone::named(spec.tz);
  if (!named) return usage_error("--tz: " + named.error().message);
  return named;
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
    schedule.timezone = zone.name();
  } else if (!spec.every.empty()) {
    auto every = parse_duration_option(spec.every, "--every", kMaxIntervalMs);
    if (!every) return every.error();
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
    if (auto s = assign_duration(spec.min, "--min", kMaxDynamicDelayMs, &schedule.min_ms); !s) {
      return s.error();
    }
    if (auto s = assign_duration(spec.max, "--max", kMaxDynamicDelayMs, &schedule.max_ms); !s) {
      return s.error();
    }
  }
  if (spec.fixed_delay && spec.every.empty()) return usage_error("--fixed-delay needs --every");
  if ((!spec.min.empty() || !spec.max.empty()) && !spec.dynamic) {
    return usage_error("--min and --max need --dynamic");
  }
  if (auto s = assign_duration(spec.jitter, "--jitter", kMaxJitterMs, &schedule.jitter_ms); !s) {
    return s.error();
  }
  return schedule;
}

bool has_key(const std::vector<EnvVar>& pairs, const std::string& key) {
  for (const EnvVar& pair : pairs) {
    if (pair.first == key) return true;
  }
  return false;
}

// --env pairs; a variable given twice would silently lose one of its values.
Result<std::vector<EnvVar>> parse_env(const LoopSpec& spec) {
  std::vector<EnvVar> env;
  for (const std::string& text : spec.env) {
    auto pair = parse_assignment(text, "--env");
    if (!pair) return pair.error();
    if (has_key(env, pair->first)) {
      return usage_error("--env " + pair->first + " is given twice; give each variable once");
    }
    env.push_back(*pair);
  }
  return env;
}

// The spec's paths made absolute (core/user_path.h).
Status absolutize(const LoopSpec& spec, LoopSpec& out) {
  const auto fix = [&](const char* option, std::string& path) -> Status {
    if (path.empty()) return Ok{};
    auto absolute = resolve_user_path(path, spec.paths);
    if (!absolute) return usage_error(std::string(option) + ": " + absolute.error().message);
    path = std::move(*absolute);
    return Ok{};
  };
  if (auto s = fix("--cwd", out.cwd); !s) return s;
  if (auto s = fix("--prompt-file", out.prompt_file); !s) return s;
  for (std::string& dir : out.add_dirs) {
    if (auto s = fix("--add-dir", dir); !s) return s;
  }
  return Ok{};
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
  Target target;
  if (!spec.workflow.empty()) {
    // A reference (NAME_OR_ID[@VERSION]) and the input as given: the command
    // resolves and checks both against the store (docs/workflows.md).
    target.type = TargetType::kWorkflow;
    target.workflow_id = spec.workflow;
    target.input_json = spec.input.empty() ? "{}" : spec.input;
  } else if (!spec.shell.empty()) {
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

Status apply_retry_policy(const LoopSpec& spec, Loop& loop) {
  if (spec.max_attempts) {
    if (*spec.max_attempts < 1 || *spec.max_attempts > 100) {
      return usage_error("--max-attempts " + std::to_string(*spec.max_attempts) +
                         " out of range 1-100");
    }
    loop.max_attempts = *spec.max_attempts;
  }
  if (auto s = assign_duration(spec.retry_delay, "--retry-delay", kMaxRetryDelayMs,
                               &loop.retry_delay_ms);
      !s) {
    return s;
  }
  if (!spec.retry_backoff.empty()) {
    auto backoff = parse_backoff(spec.retry_backoff);
    if (!backoff) return usage_error("--retry-backoff: " + backoff.error().message);
    loop.retry_backoff = *backoff;
  }
  if (loop.max_attempts == 1 && (!spec.retry_delay.empty() || !spec.retry_backoff.empty())) {
    return usage_error(std::string(spec.retry_delay.empty() ? "--retry-backoff" : "--retry-delay") +
                       " has no effect with a single attempt: give --max-attempts 2 or more");
  }
  return Ok{};
}

Status apply_catch_up(const LoopSpec& spec, Loop& loop) {
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
    const ScheduleType type = loop.schedule.type;
    if (type == ScheduleType::kOnce || type == ScheduleType::kDynamic) {
      return usage_error(std::string("--catch-up-limit has no effect on a ") +
                         (type == ScheduleType::kOnce ? "--at" : "--dynamic") +
                         " schedule: it has one slot at a time");
    }
    loop.catch_up.limit = *spec.catch_up_limit;
  }
  if (auto s = assign_optional(spec.catch_up_window, "--catch-up-window", kMaxCatchUpWindowMs,
                               &loop.catch_up.window);
      !s) {
    return s;
  }
  return validate_catch_up(loop.catch_up);
}

Status apply_timeouts(const LoopSpec& spec, Loop& loop) {
  if (auto s = assign_duration(spec.lease, "--lease", kMaxLeaseMs, &loop.lease_ms); !s) return s;
  if (loop.lease_ms < kMinimumLeaseMs) {
    return usage_error("--lease " + spec.lease + " is shorter than the minimum of 1s");
  }
  if (auto s = assign_optional(spec.timeout, "--timeout", kMaxTimeoutMs, &loop.timeout_ms); !s) {
    return s;
  }
  if (auto s = assign_optional(spec.idle_timeout, "--idle-timeout", kMaxTimeoutMs,
                               &loop.idle_timeout_ms);
      !s) {
    return s;
  }
  if (loop.timeout_ms && loop.idle_timeout_ms && *loop.idle_timeout_ms >= *loop.timeout_ms) {
    return usage_error("--idle-timeout " + spec.idle_timeout +
                       " has no effect: it is not shorter than --timeout " + spec.timeout);
  }
  return Ok{};
}

// --feed: a route reference, resolved by the CLI (docs/admission.md,
// "Feeds"). A workflow target has no output of its own to feed.
Status apply_feed(const LoopSpec& spec, Loop& loop) {
  if (spec.feed.empty()) return Ok{};
  if (spec.no_feed) return usage_error("give --feed ROUTE or --no-feed, not both");
  if (loop.target.type == TargetType::kWorkflow) {
    return usage_error("--feed " + spec.feed +
                       " needs a command, shell or agent target: a workflow's runs have no "
                       "standard output of their own to read items from");
  }
  loop.feed_route_id = spec.feed;
  return Ok{};
}

Status apply_policies(const LoopSpec& spec, TimeMs now, const TimeZone& zone, Loop& loop) {
  if (auto s = apply_catch_up(spec, loop); !s) return s;
  if (!spec.overlap.empty()) {
    auto overlap = parse_overlap(spec.overlap);
    if (!overlap) return usage_error("--overlap: " + overlap.error().message);
    loop.overlap = *overlap;
  }
  if (auto s = apply_retry_policy(spec, loop); !s) return s;
  if (auto s = apply_timeouts(spec, loop); !s) return s;
  if (auto feed = apply_feed(spec, loop); !feed) return feed;
  if (!spec.log_limit.empty()) {
    auto limit =
        parse_byte_size_option(spec.log_limit, "--log-limit", kMinLogLimitBytes, kMaxLogLimitBytes);
    if (!limit) return limit.error();
    loop.log_limit_bytes = *limit;
  }
  if (!spec.expires.empty()) {
    auto expires = parse_time(spec.expires, now, zone);
    if (!expires) return usage_error("--expires: " + expires.error().message);
    if (*expires <= now) return usage_error("--expires " + spec.expires + " is not in the future");
    loop.expires_at = *expires;
  }
  auto machine = parse_label_list(spec.machine, "--machine");
  if (!machine) return machine.error();
  loop.machine = std::move(*machine);
  return Ok{};
}

// The loop must be able to run: a first slot within 1970-9999, before it expires.
Status check_first_slot(const LoopSpec& spec, const Loop& loop) {
  if (!loop.next_run_at) {
    return usage_error("the loop would never run: its first slot falls after the year 9999");
  }
  if (loop.expires_at && *loop.next_run_at >= *loop.expires_at) {
    return usage_error("--expires " + spec.expires + " is not after the first slot " +
                       format_time(*loop.next_run_at) + ": the loop would never run");
  }
  return Ok{};
}

Status check_secret_env(const LoopSpec& spec, BuiltLoop& built) {
  for (const std::string& text : spec.secret_env) {
    auto pair = parse_assignment(text, "--secret-env");
    if (!pair) return pair.error();
    if (pair->second.find('\n') != std::string::npos) {
      return usage_error("--secret-env " + pair->first + ": a value cannot contain a newline");
    }
    if (has_key(built.secret_values, pair->first) || has_key(built.loop.target.env, pair->first)) {
      return usage_error("--secret-env " + pair->first + " is given twice (or also as --env); " +
                         "give each variable once");
    }
    built.loop.target.secret_env.push_back(pair->first);
    built.secret_values.push_back(*pair);
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
  if (!is_env_name(key)) {
    return usage_error(std::string(option) + " '" + text + "': '" + key +
                       "' is not a valid environment variable name (letters, digits, _; not "
                       "starting with a digit)");
  }
  return EnvVar{key, text.substr(equals + 1)};
}

Result<BuiltLoop> build_loop(const LoopSpec& given, const std::string& id, TimeMs now,
                             const TimeZone& local) {
  if (auto name = check_name(given.name, "loop name"); !name) return name.error();
  if (auto text = check_text_fields(given); !text) return text.error();
  LoopSpec spec = given;
  if (auto paths = absolutize(given, spec); !paths) return paths.error();
  auto zone = zone_of(spec, local);
  if (!zone) return zone.error();
  BuiltLoop built;
  Loop& loop = built.loop;
  loop.id = id;
  loop.name = spec.name;
  loop.description = spec.description;
  loop.created_at = loop.updated_at = now;
  auto schedule = build_schedule(spec, now, *zone);
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
  if (auto secrets = check_secret_env(spec, built); !secrets) return secrets.error();
  if (auto applied = apply_policies(spec, now, *zone, loop); !applied) return applied.error();
  if (auto runnable = check_first_slot(spec, loop); !runnable) return runnable.error();
  return built;
}

}  // namespace orrery
