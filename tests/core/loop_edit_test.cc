#include "core/loop_edit.h"

#include <gtest/gtest.h>

#include <functional>

#include "support/time_literals.h"

namespace orrery {
namespace {

using testing::at;

const TimeMs kCreated = at("2026-06-01T12:00:00Z");
const TimeMs kNow = at("2026-06-01T12:30:00Z");
const std::string kId = "0123456789abcdef0123456789abcdef";

LoopSpec spec_named(const std::string& name) {
  LoopSpec spec;
  spec.name = name;
  return spec;
}

Loop build(const LoopSpec& spec, std::vector<EnvVar>* secrets = nullptr) {
  auto built = build_loop(spec, kId, kCreated, TimeZone::utc());
  EXPECT_TRUE(built.ok()) << built.error().message;
  if (!built) return Loop{};
  if (secrets) *secrets = built->secret_values;
  return built->loop;
}

Loop every_hour() {
  LoopSpec spec = spec_named("poll");
  spec.every = "1h";
  spec.command = {"/bin/echo", "hi"};
  return build(spec);
}

Result<EditedLoop> edit(const Loop& loop, const LoopSpec& given,
                        const std::vector<EnvVar>& secrets = {}) {
  return edit_loop(loop, secrets, given, kNow, TimeZone::utc());
}

std::string error_of(const Loop& loop, const LoopSpec& given) {
  auto edited = edit(loop, given);
  EXPECT_FALSE(edited.ok()) << "should be refused";
  return edited ? "" : edited.error().message;
}

// The configuration `add` would store for the spec: rebuilt from the loop's
// own spec, every configuration field comes back the same.
void expect_same_config(const Loop& a, const Loop& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.description, b.description);
  EXPECT_EQ(a.schedule.type, b.schedule.type);
  EXPECT_EQ(a.schedule.at, b.schedule.at);
  EXPECT_EQ(a.schedule.every_ms, b.schedule.every_ms);
  EXPECT_EQ(a.schedule.anchor, b.schedule.anchor);
  EXPECT_EQ(a.schedule.expression, b.schedule.expression);
  EXPECT_EQ(a.schedule.timezone, b.schedule.timezone);
  EXPECT_EQ(a.schedule.min_ms, b.schedule.min_ms);
  EXPECT_EQ(a.schedule.max_ms, b.schedule.max_ms);
  EXPECT_EQ(a.schedule.jitter_ms, b.schedule.jitter_ms);
  EXPECT_EQ(a.target.argv, b.target.argv);
  EXPECT_EQ(a.target.shell, b.target.shell);
  EXPECT_EQ(a.target.command_line, b.target.command_line);
  EXPECT_EQ(a.target.cwd, b.target.cwd);
  EXPECT_EQ(a.target.env, b.target.env);
  EXPECT_EQ(a.target.secret_env, b.target.secret_env);
  EXPECT_EQ(a.target.agent.has_value(), b.target.agent.has_value());
  if (a.target.agent && b.target.agent) {
    EXPECT_EQ(a.target.agent->provider, b.target.agent->provider);
    EXPECT_EQ(a.target.agent->prompt, b.target.agent->prompt);
    EXPECT_EQ(a.target.agent->model, b.target.agent->model);
    EXPECT_EQ(a.target.agent->variant, b.target.agent->variant);
    EXPECT_EQ(a.target.agent->permission_mode, b.target.agent->permission_mode);
    EXPECT_EQ(a.target.agent->add_dirs, b.target.agent->add_dirs);
  }
  EXPECT_EQ(a.machine, b.machine);
  EXPECT_EQ(a.catch_up.mode, b.catch_up.mode);
  EXPECT_EQ(a.catch_up.limit, b.catch_up.limit);
  EXPECT_EQ(a.catch_up.window, b.catch_up.window);
  EXPECT_EQ(a.overlap, b.overlap);
  EXPECT_EQ(a.max_attempts, b.max_attempts);
  EXPECT_EQ(a.retry_delay_ms, b.retry_delay_ms);
  EXPECT_EQ(a.retry_backoff, b.retry_backoff);
  EXPECT_EQ(a.lease_ms, b.lease_ms);
  EXPECT_EQ(a.timeout_ms, b.timeout_ms);
  EXPECT_EQ(a.idle_timeout_ms, b.idle_timeout_ms);
  EXPECT_EQ(a.log_limit_bytes, b.log_limit_bytes);
  EXPECT_EQ(a.expires_at, b.expires_at);
}

// Several loops, each with many non-default options: the spec written back
// builds the same loop.
TEST(LoopEdit, TheSpecOfALoopBuildsTheSameLoop) {
  std::vector<LoopSpec> specs;
  LoopSpec cron = spec_named("cron");
  cron.cron = "0 9 * * 1-5";
  cron.tz = "Europe/Berlin";
  cron.jitter = "1m30s";
  cron.catch_up = "all";
  cron.catch_up_limit = 7;
  cron.catch_up_window = "2h";
  cron.overlap = "queue";
  cron.max_attempts = 3;
  cron.retry_delay = "1500ms";
  cron.retry_backoff = "exponential";
  cron.lease = "90s";
  cron.timeout = "1h";
  cron.idle_timeout = "5m";
  cron.expires = "2027-01-01T00:00:00Z";
  cron.log_limit = "1MiB";
  cron.description = "weekday mornings";
  cron.shell = "echo $HOME";
  cron.env = {"A=1", "B=x=y"};
  cron.secret_env = {"TOKEN=s3cr3t"};
  cron.machine = {"gpu=yes"};
  cron.cwd = "/tmp";
  specs.push_back(cron);
  LoopSpec delay = spec_named("delay");
  delay.every = "1h30m";
  delay.fixed_delay = true;
  delay.command = {"/bin/echo", "a b", ""};
  specs.push_back(delay);
  LoopSpec dynamic = spec_named("dynamic");
  dynamic.dynamic = true;
  dynamic.min = "10s";
  dynamic.max = "2h";
  dynamic.agent = "codex";
  dynamic.prompt = "review the diff";
  dynamic.model = "sonnet";
  dynamic.effort = "high";
  dynamic.add_dirs = {"/srv/a", "/srv/b"};
  specs.push_back(dynamic);
  LoopSpec once = spec_named("once");
  once.at = "2026-07-01T08:00:00.250Z";
  once.command = {"true"};
  specs.push_back(once);
  for (const LoopSpec& spec : specs) {
    SCOPED_TRACE(spec.name);
    std::vector<EnvVar> secrets;
    const Loop loop = build(spec, &secrets);
    auto again = build_loop(spec_of_loop(loop, secrets), kId, kCreated, TimeZone::utc());
    ASSERT_TRUE(again.ok()) << again.error().message;
    expect_same_config(loop, again->loop);
    EXPECT_EQ(again->secret_values, secrets);
  }
}

TEST(LoopEdit, OnlyTheGivenOptionChangesAndTheStateIsKept) {
  Loop loop = every_hour();
  loop.next_run_at = kCreated + 3'600'000;
  loop.retry_scheduled_for = kCreated;
  loop.missed_count = 4;
  loop.state_version = 7;
  loop.config_version = 3;
  LoopSpec given;
  given.description = "health check";
  given.overlap = "replace";
  auto edited = edit(loop, given);
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  const Loop& out = edited->loop;
  EXPECT_EQ(out.description, "health check");
  EXPECT_EQ(out.overlap, OverlapPolicy::kReplace);
  EXPECT_EQ(out.target.argv, loop.target.argv);
  EXPECT_EQ(out.schedule.every_ms, 3'600'000);
  EXPECT_EQ(schedule_state(out), schedule_state(loop));
  EXPECT_FALSE(edited->schedule_changed);
  EXPECT_FALSE(edited->secrets_changed);
  EXPECT_EQ(out.id, loop.id);
  EXPECT_EQ(out.name, "poll");
  EXPECT_EQ(out.created_at, kCreated);
  EXPECT_EQ(out.updated_at, kNow);
  EXPECT_EQ(out.state_version, 7);
  EXPECT_EQ(out.config_version, 3);
}

// A new schedule replans the next slot from now, as a new loop would, and
// drops a pending retry; the same schedule given again replans nothing.
TEST(LoopEdit, AScheduleChangeReplansTheNextSlot) {
  Loop loop = every_hour();
  loop.retry_scheduled_for = kCreated;
  const std::vector<std::pair<std::string, TimeMs>> cases{
      {"15m", kNow + 15 * 60'000}, {"2h", kNow + 2 * 3'600'000}, {"1s", kNow + 1000}};
  for (const auto& [every, next] : cases) {
    LoopSpec given;
    given.every = every;
    auto edited = edit(loop, given);
    ASSERT_TRUE(edited.ok()) << edited.error().message;
    EXPECT_TRUE(edited->schedule_changed) << every;
    EXPECT_EQ(edited->loop.next_run_at, next) << every;
    EXPECT_FALSE(edited->loop.retry_scheduled_for) << every;
  }
  LoopSpec same;
  same.every = "1h";
  auto edited = edit(loop, same);
  ASSERT_TRUE(edited.ok());
  EXPECT_FALSE(edited->schedule_changed);
  EXPECT_EQ(edited->loop.next_run_at, loop.next_run_at);
  EXPECT_EQ(edited->loop.retry_scheduled_for, loop.retry_scheduled_for);
}

TEST(LoopEdit, ACompletedLoopGetsNoNewSlot) {
  Loop loop = every_hour();
  loop.status = LoopStatus::kCompleted;
  loop.next_run_at.reset();
  LoopSpec given;
  given.cron = "*/5 * * * *";
  auto edited = edit(loop, given);
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  EXPECT_TRUE(edited->schedule_changed);
  EXPECT_EQ(edited->loop.schedule.type, ScheduleType::kCron);
  EXPECT_FALSE(edited->loop.next_run_at);
  EXPECT_EQ(edited->loop.status, LoopStatus::kCompleted);
}

// Bad values are refused with add's own messages.
TEST(LoopEdit, BadValuesAreRefusedLikeAdd) {
  const Loop loop = every_hour();
  const std::vector<std::pair<std::function<void(LoopSpec&)>, std::string>> cases{
      {[](LoopSpec& s) { s.every = "400d"; }, "--every 400d is longer than the maximum of 365d"},
      {[](LoopSpec& s) { s.lease = "10ms"; }, "--lease 10ms is shorter than the minimum of 1s"},
      {[](LoopSpec& s) { s.max_attempts = 0; }, "--max-attempts 0 out of range 1-100"},
      {[](LoopSpec& s) { s.retry_delay = "5m"; },
       "--retry-delay has no effect with a single attempt: give --max-attempts 2 or more"},
      {[](LoopSpec& s) { s.min = "1m"; }, "--min and --max need --dynamic"},
      {[](LoopSpec& s) { s.fixed_delay = true, s.cron = "@daily"; }, "--fixed-delay needs --every"},
      {[](LoopSpec& s) { s.cron = "@daily", s.every = "1h"; },
       "give only one schedule: --cron, --every, --at or --dynamic"},
      {[](LoopSpec& s) { s.shell = "true", s.command = {"true"}; },
       "give only one target: -- EXECUTABLE, --shell, --agent or --workflow"},
      {[](LoopSpec& s) { s.model = "opus"; },
       "--prompt, --prompt-file, --model, --effort, --permission-mode, --sandbox, --agent-name, "
       "--config-isolation, --add-dir, --agent-arg and --auth-profile need --agent PROVIDER"},
  };
  for (const auto& [change, message] : cases) {
    LoopSpec given;
    change(given);
    EXPECT_EQ(error_of(loop, given), message);
  }
}

TEST(LoopEdit, NothingGivenIsAUsageError) {
  auto edited = edit(every_hour(), LoopSpec{});
  ASSERT_FALSE(edited.ok());
  EXPECT_EQ(edited.error().code, ErrorCode::kUsage);
  EXPECT_EQ(edited.error().message,
            "edit needs an option to change (any option of add; see orrery edit --help)");
}

// A new target replaces the old one whole but keeps --cwd and --env; a lone
// agent option changes just that option.
TEST(LoopEdit, ATargetReplacesTheTargetAndKeepsItsEnvironment) {
  LoopSpec spec = spec_named("agent");
  spec.every = "1h";
  spec.agent = "claude";
  spec.prompt = "review";
  spec.model = "sonnet";
  spec.env = {"A=1"};
  spec.cwd = "/tmp";
  const Loop loop = build(spec);
  LoopSpec model;
  model.model = "opus";
  auto edited = edit(loop, model);
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  ASSERT_TRUE(edited->loop.target.agent);
  EXPECT_EQ(edited->loop.target.agent->model, "opus");
  EXPECT_EQ(edited->loop.target.agent->prompt, "review");
  LoopSpec shell;
  shell.shell = "echo hi";
  edited = edit(loop, shell);
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  EXPECT_FALSE(edited->loop.target.agent);
  EXPECT_TRUE(edited->loop.target.shell);
  EXPECT_EQ(edited->loop.target.command_line, "echo hi");
  EXPECT_EQ(edited->loop.target.env, (std::vector<EnvVar>{{"A", "1"}}));
  EXPECT_EQ(edited->loop.target.cwd, "/tmp");
}

// A given list replaces the whole list; secrets given are rewritten,
// secrets not given are kept.
TEST(LoopEdit, AGivenListReplacesTheList) {
  LoopSpec spec = spec_named("env");
  spec.every = "1h";
  spec.command = {"true"};
  spec.env = {"A=1", "B=2"};
  spec.secret_env = {"TOKEN=old"};
  std::vector<EnvVar> secrets;
  const Loop loop = build(spec, &secrets);
  LoopSpec env;
  env.env = {"C=3"};
  auto edited = edit(loop, env, secrets);
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  EXPECT_EQ(edited->loop.target.env, (std::vector<EnvVar>{{"C", "3"}}));
  EXPECT_EQ(edited->loop.target.secret_env, std::vector<std::string>{"TOKEN"});
  EXPECT_FALSE(edited->secrets_changed);
  EXPECT_EQ(edited->secret_values, secrets);
  LoopSpec secret;
  secret.secret_env = {"KEY=new", "OTHER=x"};
  edited = edit(loop, secret, secrets);
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  EXPECT_TRUE(edited->secrets_changed);
  EXPECT_EQ(edited->loop.target.secret_env, (std::vector<std::string>{"KEY", "OTHER"}));
  EXPECT_EQ(edited->secret_values, (std::vector<EnvVar>{{"KEY", "new"}, {"OTHER", "x"}}));
  LoopSpec clash;
  clash.env = {"TOKEN=visible"};
  EXPECT_EQ(error_of(loop, clash),
            "--secret-env TOKEN is given twice (or also as --env); give each variable once");
}

// Values that would not take effect after the edit return to their defaults.
TEST(LoopEdit, IneffectiveValuesReturnToTheirDefaults) {
  LoopSpec spec = spec_named("retry");
  spec.every = "1h";
  spec.jitter = "5m";
  spec.catch_up_limit = 9;
  spec.max_attempts = 3;
  spec.retry_delay = "5m";
  spec.retry_backoff = "exponential";
  spec.command = {"true"};
  const Loop loop = build(spec);
  LoopSpec single;
  single.max_attempts = 1;
  auto edited = edit(loop, single);
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  EXPECT_EQ(edited->loop.max_attempts, 1);
  EXPECT_EQ(edited->loop.retry_delay_ms, Loop{}.retry_delay_ms);
  EXPECT_EQ(edited->loop.retry_backoff, RetryBackoff::kFixed);
  LoopSpec dynamic;
  dynamic.dynamic = true;
  edited = edit(loop, dynamic);
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  EXPECT_EQ(edited->loop.schedule.type, ScheduleType::kDynamic);
  EXPECT_EQ(edited->loop.schedule.jitter_ms, 0);
  EXPECT_EQ(edited->loop.catch_up.limit, kDefaultCatchUpLimit);
  LoopSpec once;
  once.at = "+1h";
  edited = edit(loop, once);
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  EXPECT_EQ(edited->loop.schedule.type, ScheduleType::kOnce);
  EXPECT_EQ(edited->loop.schedule.at, kNow + 3'600'000);
  EXPECT_EQ(edited->loop.catch_up.limit, kDefaultCatchUpLimit);
}

// A once slot or an expiry in the past is kept, not refused, when not given;
// given, it must lie in the future as for add.
TEST(LoopEdit, PastTimesNotGivenAreKept) {
  LoopSpec spec = spec_named("once");
  spec.at = "2026-06-01T12:10:00Z";
  spec.expires = "2026-06-01T12:20:00Z";
  spec.command = {"true"};
  const Loop loop = build(spec);
  LoopSpec given;
  given.description = "done already";
  auto edited = edit(loop, given);
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  EXPECT_EQ(edited->loop.schedule.at, at("2026-06-01T12:10:00Z"));
  EXPECT_EQ(edited->loop.expires_at, at("2026-06-01T12:20:00Z"));
  EXPECT_FALSE(edited->schedule_changed);
  LoopSpec past;
  past.at = "2026-06-01T12:00:00Z";
  EXPECT_EQ(error_of(loop, past), "--at 2026-06-01T12:00:00Z is not in the future");
  LoopSpec expired;
  expired.expires = "2026-06-01T12:29:00Z";
  EXPECT_EQ(error_of(loop, expired), "--expires 2026-06-01T12:29:00Z is not in the future");
}

// --tz alone changes a cron loop's zone and replans it; the expression stays.
TEST(LoopEdit, ALoneScheduleModifierChangesJustThatPart) {
  LoopSpec spec = spec_named("cron");
  spec.cron = "0 9 * * *";
  spec.tz = "UTC";
  spec.command = {"true"};
  const Loop loop = build(spec);
  LoopSpec zone;
  zone.tz = "Asia/Tokyo";
  auto edited = edit(loop, zone);
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  EXPECT_EQ(edited->loop.schedule.expression, "0 9 * * *");
  EXPECT_EQ(edited->loop.schedule.timezone, "Asia/Tokyo");
  EXPECT_TRUE(edited->schedule_changed);
  EXPECT_EQ(edited->loop.next_run_at, at("2026-06-02T00:00:00Z"));
  LoopSpec fixed_delay;
  fixed_delay.fixed_delay = true;
  edited = edit(every_hour(), fixed_delay);
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  EXPECT_EQ(edited->loop.schedule.anchor, IntervalAnchor::kFixedDelay);
  EXPECT_EQ(edited->loop.schedule.every_ms, 3'600'000);
}

}  // namespace
}  // namespace orrery

namespace orrery {
namespace {

TEST(LoopEdit, AFeedIsSetKeptByOtherEditsMovedAndRemoved) {
  LoopSpec feeding;
  feeding.feed = "inbox";
  auto fed = edit(every_hour(), feeding);
  ASSERT_TRUE(fed.ok()) << fed.error().message;
  EXPECT_EQ(fed->loop.feed_route_id, "inbox");

  LoopSpec other;
  other.every = "2h";
  auto kept = edit(fed->loop, other);
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  EXPECT_EQ(kept->loop.feed_route_id, "inbox");

  LoopSpec moved;
  moved.feed = "triage";
  EXPECT_EQ(edit(kept->loop, moved)->loop.feed_route_id, "triage");

  LoopSpec removed;
  removed.no_feed = true;
  auto none = edit(kept->loop, removed);
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_TRUE(none->loop.feed_route_id.empty());

  LoopSpec both;
  both.feed = "inbox";
  both.no_feed = true;
  auto refused = edit(kept->loop, both);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("not both"), std::string::npos);
}

TEST(LoopEdit, AFeedingLoopCannotBecomeAWorkflowLoop) {
  LoopSpec feeding;
  feeding.feed = "inbox";
  const Loop fed = edit(every_hour(), feeding)->loop;
  LoopSpec workflow;
  workflow.workflow = "triage";
  auto refused = edit(fed, workflow);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("--feed inbox needs a command"), std::string::npos)
      << refused.error().message;
}

}  // namespace
}  // namespace orrery
