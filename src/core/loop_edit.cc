#include "core/loop_edit.h"

#include "core/duration.h"

namespace orrery {
namespace {

std::string pair_text(const EnvVar& pair) { return pair.first + "=" + pair.second; }

std::vector<std::string> pair_texts(const std::vector<EnvVar>& pairs) {
  std::vector<std::string> texts;
  for (const EnvVar& pair : pairs) texts.push_back(pair_text(pair));
  return texts;
}

std::string optional_duration_text(const std::optional<DurationMs>& duration) {
  return duration ? format_duration(*duration) : "";
}

void schedule_into(const Schedule& schedule, LoopSpec& spec) {
  switch (schedule.type) {
    case ScheduleType::kCron:
      spec.cron = schedule.expression;
      spec.tz = schedule.timezone;
      break;
    case ScheduleType::kInterval:
      spec.every = format_duration(schedule.every_ms);
      spec.fixed_delay = schedule.anchor == IntervalAnchor::kFixedDelay;
      break;
    case ScheduleType::kOnce:
      spec.at = format_time(schedule.at);
      break;
    case ScheduleType::kDynamic:
      spec.dynamic = true;
      spec.min = format_duration(schedule.min_ms);
      spec.max = format_duration(schedule.max_ms);
      break;
  }
  if (schedule.jitter_ms > 0) spec.jitter = format_duration(schedule.jitter_ms);
}

void agent_into(const AgentTarget& agent, LoopSpec& spec) {
  spec.agent = provider_name(agent.provider);
  spec.prompt = agent.prompt;
  spec.prompt_file = agent.prompt_file;
  spec.model = agent.model;
  spec.effort = agent.variant;
  spec.agent_name = agent.agent;
  spec.permission_mode = agent.permission_mode;
  spec.sandbox = agent.sandbox;
  spec.config_isolation = agent.config_isolation;
  spec.add_dirs = agent.add_dirs;
  spec.agent_args = agent.extra_args;
  spec.auth_profile = agent.auth_profile;
}

void target_into(const Target& target, const std::vector<EnvVar>& secrets, LoopSpec& spec) {
  if (target.agent) {
    agent_into(*target.agent, spec);
  } else if (target.type == TargetType::kWorkflow) {
    spec.workflow = target.workflow_id;
    spec.input = target.input_json;
  } else if (target.shell) {
    spec.shell = target.command_line;
  } else {
    spec.command = target.argv;
  }
  spec.cwd = target.cwd;
  spec.env = pair_texts(target.env);
  for (const std::string& name : target.secret_env) {
    std::string value;
    for (const EnvVar& secret : secrets) {
      if (secret.first == name) value = secret.second;
    }
    spec.secret_env.push_back(name + "=" + value);
  }
}

void policies_into(const Loop& loop, LoopSpec& spec) {
  const Loop defaults;
  if (loop.catch_up.mode != defaults.catch_up.mode) {
    spec.catch_up = catch_up_mode_name(loop.catch_up.mode);
  }
  if (loop.catch_up.limit != defaults.catch_up.limit) spec.catch_up_limit = loop.catch_up.limit;
  spec.catch_up_window = optional_duration_text(loop.catch_up.window);
  if (loop.overlap != defaults.overlap) spec.overlap = overlap_name(loop.overlap);
  if (loop.max_attempts != defaults.max_attempts) spec.max_attempts = loop.max_attempts;
  if (loop.retry_delay_ms != defaults.retry_delay_ms) {
    spec.retry_delay = format_duration(loop.retry_delay_ms);
  }
  if (loop.retry_backoff != defaults.retry_backoff) {
    spec.retry_backoff = backoff_name(loop.retry_backoff);
  }
  if (loop.lease_ms != defaults.lease_ms) spec.lease = format_duration(loop.lease_ms);
  spec.timeout = optional_duration_text(loop.timeout_ms);
  spec.idle_timeout = optional_duration_text(loop.idle_timeout_ms);
  if (loop.expires_at) spec.expires = format_time(*loop.expires_at);
  if (loop.log_limit_bytes != defaults.log_limit_bytes) {
    spec.log_limit = std::to_string(loop.log_limit_bytes);
  }
  spec.machine = pair_texts(loop.machine);
  spec.feed = loop.feed_route_id;
}

bool same_schedule(const Schedule& a, const Schedule& b) {
  return a.type == b.type && a.at == b.at && a.every_ms == b.every_ms && a.anchor == b.anchor &&
         a.expression == b.expression && a.timezone == b.timezone && a.min_ms == b.min_ms &&
         a.max_ms == b.max_ms && a.jitter_ms == b.jitter_ms;
}

bool gives_schedule(const LoopSpec& spec) {
  return !spec.cron.empty() || !spec.every.empty() || !spec.at.empty() || spec.dynamic;
}

bool gives_target(const LoopSpec& spec) {
  return !spec.command.empty() || !spec.shell.empty() || !spec.agent.empty() ||
         !spec.workflow.empty();
}

bool gives_schedule_part(const LoopSpec& spec) {
  return gives_schedule(spec) || spec.fixed_delay || !spec.min.empty() || !spec.max.empty() ||
         !spec.tz.empty() || !spec.jitter.empty();
}

void clear_schedule(LoopSpec& spec) {
  spec.cron.clear();
  spec.every.clear();
  spec.at.clear();
  spec.dynamic = false;
  spec.fixed_delay = false;
  spec.min.clear();
  spec.max.clear();
}

void clear_target(LoopSpec& spec) {
  spec.command.clear();
  spec.shell.clear();
  spec.workflow.clear();
  spec.input.clear();
  spec.agent.clear();
  spec.prompt.clear();
  spec.prompt_file.clear();
  spec.model.clear();
  spec.effort.clear();
  spec.permission_mode.clear();
  spec.sandbox.clear();
  spec.agent_name.clear();
  spec.config_isolation.clear();
  spec.add_dirs.clear();
  spec.agent_args.clear();
  spec.auth_profile.clear();
}

void set_if_given(std::string& base, const std::string& given) {
  if (!given.empty()) base = given;
}

void set_if_given(std::vector<std::string>& base, const std::vector<std::string>& given) {
  if (!given.empty()) base = given;
}

void set_if_given(std::optional<int>& base, const std::optional<int>& given) {
  if (given) base = given;
}

// Values of the base that could not take effect under the given options.
void drop_ineffective(const LoopSpec& given, LoopSpec& base) {
  if (given.dynamic && given.jitter.empty()) base.jitter.clear();
  if ((given.dynamic || !given.at.empty()) && !given.catch_up_limit) base.catch_up_limit.reset();
  if (given.max_attempts == 1) {
    if (given.retry_delay.empty()) base.retry_delay.clear();
    if (given.retry_backoff.empty()) base.retry_backoff.clear();
  }
}

}  // namespace

bool edits_anything(const LoopSpec& given) {
  return gives_schedule_part(given) || gives_target(given) || given.catch_up_limit ||
         given.max_attempts || !given.description.empty() || !given.catch_up.empty() ||
         !given.catch_up_window.empty() || !given.overlap.empty() || !given.retry_delay.empty() ||
         !given.retry_backoff.empty() || !given.lease.empty() || !given.timeout.empty() ||
         !given.idle_timeout.empty() || !given.expires.empty() || !given.cwd.empty() ||
         !given.env.empty() || !given.secret_env.empty() || !given.machine.empty() ||
         !given.prompt.empty() || !given.prompt_file.empty() || !given.model.empty() ||
         !given.effort.empty() || !given.permission_mode.empty() || !given.sandbox.empty() ||
         !given.agent_name.empty() || !given.config_isolation.empty() || !given.add_dirs.empty() ||
         !given.agent_args.empty() || !given.auth_profile.empty() || !given.input.empty() ||
         !given.log_limit.empty() || !given.feed.empty() || given.no_feed;
}

LoopSpec spec_of_loop(const Loop& loop, const std::vector<EnvVar>& secrets) {
  LoopSpec spec;
  spec.name = loop.name;
  spec.description = loop.description;
  schedule_into(loop.schedule, spec);
  target_into(loop.target, secrets, spec);
  policies_into(loop, spec);
  return spec;
}

LoopSpec overlay_spec(LoopSpec base, const LoopSpec& given) {
  if (gives_schedule(given)) clear_schedule(base);
  if (gives_target(given)) clear_target(base);
  drop_ineffective(given, base);
  set_if_given(base.description, given.description);
  set_if_given(base.cron, given.cron);
  set_if_given(base.every, given.every);
  base.fixed_delay = base.fixed_delay || given.fixed_delay;
  set_if_given(base.at, given.at);
  base.dynamic = base.dynamic || given.dynamic;
  set_if_given(base.min, given.min);
  set_if_given(base.max, given.max);
  set_if_given(base.tz, given.tz);
  set_if_given(base.jitter, given.jitter);
  set_if_given(base.catch_up, given.catch_up);
  set_if_given(base.catch_up_limit, given.catch_up_limit);
  set_if_given(base.catch_up_window, given.catch_up_window);
  set_if_given(base.overlap, given.overlap);
  set_if_given(base.max_attempts, given.max_attempts);
  set_if_given(base.retry_delay, given.retry_delay);
  set_if_given(base.retry_backoff, given.retry_backoff);
  set_if_given(base.lease, given.lease);
  set_if_given(base.timeout, given.timeout);
  set_if_given(base.idle_timeout, given.idle_timeout);
  set_if_given(base.expires, given.expires);
  set_if_given(base.cwd, given.cwd);
  set_if_given(base.env, given.env);
  set_if_given(base.secret_env, given.secret_env);
  set_if_given(base.machine, given.machine);
  set_if_given(base.command, given.command);
  set_if_given(base.shell, given.shell);
  set_if_given(base.agent, given.agent);
  set_if_given(base.prompt, given.prompt);
  set_if_given(base.prompt_file, given.prompt_file);
  set_if_given(base.model, given.model);
  set_if_given(base.effort, given.effort);
  set_if_given(base.permission_mode, given.permission_mode);
  set_if_given(base.sandbox, given.sandbox);
  set_if_given(base.agent_name, given.agent_name);
  set_if_given(base.config_isolation, given.config_isolation);
  set_if_given(base.add_dirs, given.add_dirs);
  set_if_given(base.agent_args, given.agent_args);
  set_if_given(base.auth_profile, given.auth_profile);
  set_if_given(base.workflow, given.workflow);
  set_if_given(base.input, given.input);
  set_if_given(base.log_limit, given.log_limit);
  set_if_given(base.feed, given.feed);
  if (given.no_feed) {
    if (!given.feed.empty())
      base.no_feed = true;  // refused by build_loop
    else
      base.feed.clear();
  }
  base.paths = given.paths;
  return base;
}

Result<EditedLoop> edit_loop(const Loop& loop, const std::vector<EnvVar>& secrets,
                             const LoopSpec& given, TimeMs now, const TimeZone& local) {
  if (!edits_anything(given)) {
    return usage_error(
        "edit needs an option to change (any option of add; see orrery edit --help)");
  }
  LoopSpec base = spec_of_loop(loop, secrets);
  // What is kept as it is need not lie in the future: a once slot or an
  // expiry that has passed stays, unchanged, when it is not given.
  const bool keep_schedule = !gives_schedule_part(given);
  if (keep_schedule && loop.schedule.type == ScheduleType::kOnce && loop.schedule.at <= now) {
    base.at = format_time(now + 1);
  }
  const bool keep_expiry = given.expires.empty() && loop.expires_at && *loop.expires_at <= now;
  if (keep_expiry) base.expires.clear();
  const LoopSpec spec = overlay_spec(std::move(base), given);
  auto built = build_loop(spec, loop.id, now, local);
  if (!built) return built.error();

  EditedLoop edited;
  edited.loop = built->loop;
  Loop& out = edited.loop;
  out.name = loop.name;
  out.created_at = loop.created_at;
  out.updated_at = now;
  out.config_version = loop.config_version;
  out.state_version = loop.state_version;
  if (keep_expiry) out.expires_at = loop.expires_at;
  set_schedule_state(out, schedule_state(loop));
  if (keep_schedule) {
    out.schedule = loop.schedule;
  } else {
    edited.schedule_changed = !same_schedule(out.schedule, loop.schedule);
  }
  if (edited.schedule_changed && loop.status != LoopStatus::kCompleted &&
      loop.status != LoopStatus::kExpired) {
    out.next_run_at = built->loop.next_run_at;
    out.retry_scheduled_for.reset();
  }
  edited.secrets_changed = !given.secret_env.empty();
  edited.secret_values = edited.secrets_changed ? built->secret_values : secrets;
  return edited;
}

}  // namespace orrery
