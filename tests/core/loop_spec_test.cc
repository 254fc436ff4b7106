#include "core/loop_spec.h"

#include <gtest/gtest.h>

#include "support/time_literals.h"

namespace orrery {
namespace {

using testing::at;

const TimeMs kNow = at("2026-06-01T12:00:00Z");
const std::string kId = "0123456789abcdef0123456789abcdef";

LoopSpec every_minute(const std::string& name = "poll") {
  LoopSpec spec;
  spec.name = name;
  spec.every = "1m";
  spec.command = {"/bin/true"};
  return spec;
}

Result<BuiltLoop> build(const LoopSpec& spec) {
  return build_loop(spec, kId, kNow, TimeZone::utc());
}

std::string error_of(const LoopSpec& spec) {
  auto built = build(spec);
  EXPECT_FALSE(built.ok()) << "should be refused";
  return built ? "" : built.error().message;
}

TEST(LoopSpec, DefaultsOfANewLoop) {
  auto built = build(every_minute());
  ASSERT_TRUE(built.ok()) << built.error().message;
  const Loop& loop = built->loop;
  EXPECT_EQ(loop.id, kId);
  EXPECT_EQ(loop.status, LoopStatus::kActive);
  EXPECT_EQ(loop.schedule.type, ScheduleType::kInterval);
  EXPECT_EQ(loop.schedule.every_ms, 60'000);
  EXPECT_EQ(loop.next_run_at, kNow + 60'000);
  EXPECT_EQ(loop.catch_up.mode, CatchUpMode::kLatest);
  EXPECT_EQ(loop.catch_up.limit, 50);
  EXPECT_EQ(loop.overlap, OverlapPolicy::kSkip);
  EXPECT_EQ(loop.max_attempts, 1);
  EXPECT_EQ(loop.retry_delay_ms, 60'000);
  EXPECT_EQ(loop.lease_ms, 30 * 60'000);
  EXPECT_EQ(loop.target.argv, std::vector<std::string>{"/bin/true"});
  EXPECT_EQ(loop.created_at, kNow);
}

TEST(LoopSpec, EveryOptionIsParsed) {
  LoopSpec spec = every_minute();
  spec.every.clear();
  spec.cron = "0 9 * * 1-5";
  spec.tz = "Europe/Berlin";
  spec.jitter = "30s";
  spec.catch_up = "all";
  spec.catch_up_limit = 7;
  spec.catch_up_window = "2h";
  spec.overlap = "queue";
  spec.max_attempts = 3;
  spec.retry_delay = "10s";
  spec.retry_backoff = "exponential";
  spec.lease = "5m";
  spec.timeout = "1h";
  spec.idle_timeout = "10m";
  spec.expires = "2026-12-31T00:00:00Z";
  spec.cwd = "/tmp";
  spec.env = {"MODE=fast", "EMPTY="};
  spec.secret_env = {"TOKEN=s3cr3t=x"};
  spec.machine = {"os=linux"};
  spec.description = "weekday mornings";
  auto built = build(spec);
  ASSERT_TRUE(built.ok()) << built.error().message;
  const Loop& loop = built->loop;
  EXPECT_EQ(loop.schedule.timezone, "Europe/Berlin");
  EXPECT_EQ(loop.schedule.jitter_ms, 30'000);
  EXPECT_EQ(loop.catch_up.mode, CatchUpMode::kAll);
  EXPECT_EQ(loop.catch_up.limit, 7);
  EXPECT_EQ(loop.catch_up.window, 7'200'000);
  EXPECT_EQ(loop.overlap, OverlapPolicy::kQueue);
  EXPECT_EQ(loop.max_attempts, 3);
  EXPECT_EQ(loop.retry_delay_ms, 10'000);
  EXPECT_EQ(loop.retry_backoff, RetryBackoff::kExponential);
  EXPECT_EQ(loop.lease_ms, 300'000);
  EXPECT_EQ(loop.timeout_ms, 3'600'000);
  EXPECT_EQ(loop.idle_timeout_ms, 600'000);
  EXPECT_EQ(loop.expires_at, at("2026-12-31T00:00:00Z"));
  EXPECT_EQ(loop.target.cwd, "/tmp");
  EXPECT_EQ(loop.target.env, (std::vector<EnvVar>{{"MODE", "fast"}, {"EMPTY", ""}}));
  EXPECT_EQ(loop.target.secret_env, std::vector<std::string>{"TOKEN"});
  EXPECT_EQ(built->secret_values, (std::vector<EnvVar>{{"TOKEN", "s3cr3t=x"}}));
  EXPECT_EQ(loop.machine, (std::vector<EnvVar>{{"os", "linux"}}));
  // Monday 1 June 2026, 09:00 Berlin (07:00Z) has passed at 12:00Z: Tuesday, plus the jitter.
  EXPECT_EQ(loop.next_run_at,
            at("2026-06-02T07:00:00Z") + jitter_offset(kId, loop.schedule.jitter_ms));
}

TEST(LoopSpec, CronWithoutTzUsesTheGivenLocalZone) {
  LoopSpec spec = every_minute();
  spec.every.clear();
  spec.cron = "@daily";
  auto built = build_loop(spec, kId, kNow, testing::zone("Asia/Tokyo"));
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(built->loop.schedule.timezone, "Asia/Tokyo");
  EXPECT_EQ(built->loop.next_run_at, at("2026-06-01T15:00:00Z"));  // midnight in Tokyo
}

TEST(LoopSpec, OtherScheduleKinds) {
  LoopSpec once = every_minute();
  once.every.clear();
  once.at = "+10m";
  EXPECT_EQ(build(once)->loop.next_run_at, kNow + 600'000);
  LoopSpec dynamic = every_minute();
  dynamic.every.clear();
  dynamic.dynamic = true;
  dynamic.min = "30s";
  dynamic.max = "2h";
  auto built = build(dynamic);
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(built->loop.schedule.min_ms, 30'000);
  EXPECT_EQ(built->loop.schedule.max_ms, 7'200'000);
  EXPECT_EQ(built->loop.next_run_at, kNow + 30'000);
  LoopSpec delay = every_minute();
  delay.fixed_delay = true;
  EXPECT_EQ(build(delay)->loop.schedule.anchor, IntervalAnchor::kFixedDelay);
  LoopSpec shell = every_minute();
  shell.command.clear();
  shell.shell = "make test | tail";
  EXPECT_TRUE(build(shell)->loop.target.shell);
}

TEST(LoopSpec, ScheduleAndTargetMustBeExactlyOne) {
  LoopSpec none = every_minute();
  none.every.clear();
  EXPECT_NE(error_of(none).find("a schedule is required"), std::string::npos);
  LoopSpec two = every_minute();
  two.cron = "* * * * *";
  EXPECT_EQ(error_of(two), "give only one schedule: --cron, --every, --at or --dynamic");
  LoopSpec no_target = every_minute();
  no_target.command.clear();
  EXPECT_NE(error_of(no_target).find("a target is required"), std::string::npos);
  LoopSpec two_targets = every_minute();
  two_targets.shell = "true";
  EXPECT_NE(error_of(two_targets).find("give only one target"), std::string::npos);
}

TEST(LoopSpec, ACommandWithSpacesAndNoShellGetsAHint) {
  LoopSpec spec = every_minute();
  spec.command = {"make review"};
  EXPECT_EQ(error_of(spec),
            "command 'make review' contains spaces: pass the arguments separately (-- make ...) "
            "or run it through a shell with --shell 'make review'");
}

TEST(LoopSpec, AgentTargetsAreBuiltAndValidated) {
  LoopSpec spec = every_minute();
  spec.command.clear();
  spec.agent = "codex";
  spec.prompt = "fix the flaky test";
  spec.model = "gpt-5";
  spec.effort = "high";
  spec.sandbox = "read-only";
  spec.add_dirs = {"/shared"};
  spec.agent_args = {"--profile", "ci"};
  spec.cwd = "/repo";
  auto built = build(spec);
  ASSERT_TRUE(built.ok()) << built.error().message;
  const Target& target = built->loop.target;
  EXPECT_EQ(target.type, TargetType::kAgent);
  ASSERT_TRUE(target.agent.has_value());
  EXPECT_EQ(target.agent->provider, AgentProvider::kCodex);
  EXPECT_EQ(target.agent->variant, "high");
  EXPECT_EQ(target.agent->extra_args, (std::vector<std::string>{"--profile", "ci"}));
  EXPECT_EQ(target.agent->cwd, "/repo");
  spec.agent = "chatgpt";
  EXPECT_EQ(error_of(spec),
            "--agent: invalid agent provider 'chatgpt': expected claude, cursor, codewith, codex, "
            "aicopilot, opencode, gemini");
  spec.agent = "claude";
  EXPECT_EQ(error_of(spec),
            "agent claude: --sandbox is supported only for codewith, codex and cursor");
}

TEST(LoopSpec, WorkflowTargetsAreNotYetAvailable) {
  LoopSpec workflow = every_minute();
  workflow.command.clear();
  workflow.workflow = "ship";
  EXPECT_NE(error_of(workflow).find("--workflow ship"), std::string::npos);
}

TEST(LoopSpec, BadValuesNameTheOption) {
  const auto with = [](auto change) {
    LoopSpec spec = every_minute();
    change(spec);
    return error_of(spec);
  };
  EXPECT_EQ(with([](LoopSpec& s) { s.name.clear(); }), "a loop name cannot be empty");
  EXPECT_NE(with([](LoopSpec& s) { s.every = "soon"; }).find("--every: invalid duration 'soon'"),
            std::string::npos);
  EXPECT_NE(with([](LoopSpec& s) {
              s.every.clear();
              s.cron = "0 0 32 * *";
            }).find("day-of-month 32 out of range 1-31"),
            std::string::npos);
  EXPECT_EQ(with([](LoopSpec& s) {
              s.every.clear();
              s.at = "2020-01-01T00:00:00Z";
            }),
            "--at 2020-01-01T00:00:00Z is not in the future");
  EXPECT_EQ(with([](LoopSpec& s) {
              s.every.clear();
              s.cron = "* * * * *";
              s.tz = "Nowhere/City";
            }),
            "unknown time zone 'Nowhere/City': expected an IANA name such as Europe/Berlin or UTC");
  EXPECT_EQ(with([](LoopSpec& s) { s.lease = "500ms"; }),
            "--lease 500ms is shorter than the minimum of 1s");
  EXPECT_EQ(with([](LoopSpec& s) { s.catch_up_limit = 0; }),
            "--catch-up-limit 0 out of range 1-1000");
  EXPECT_EQ(with([](LoopSpec& s) { s.catch_up_limit = 1001; }),
            "--catch-up-limit 1001 out of range 1-1000");
  EXPECT_EQ(with([](LoopSpec& s) { s.catch_up = "sometimes"; }),
            "--catch-up: invalid catch-up policy 'sometimes': expected latest, all, none");
  EXPECT_EQ(with([](LoopSpec& s) { s.overlap = "maybe"; }),
            "--overlap: invalid overlap policy 'maybe': expected skip, queue, allow, replace");
  EXPECT_EQ(with([](LoopSpec& s) { s.retry_backoff = "linear"; }),
            "--retry-backoff: invalid retry backoff 'linear': expected fixed, exponential");
  EXPECT_EQ(with([](LoopSpec& s) { s.max_attempts = 0; }), "--max-attempts 0 out of range 1-100");
  EXPECT_EQ(with([](LoopSpec& s) { s.env = {"NOEQUALS"}; }),
            "--env 'NOEQUALS': expected KEY=VALUE");
  EXPECT_NE(with([](LoopSpec& s) { s.env = {"1BAD=x"}; }).find("not a valid environment variable"),
            std::string::npos);
  EXPECT_EQ(with([](LoopSpec& s) { s.expires = "2026-01-01T00:00:00Z"; }),
            "--expires 2026-01-01T00:00:00Z is not in the future");
  EXPECT_EQ(with([](LoopSpec& s) { s.min = "1m"; }), "--min and --max need --dynamic");
  EXPECT_NE(with([](LoopSpec& s) { s.prompt = "hi"; }).find("need --agent PROVIDER"),
            std::string::npos);
  EXPECT_EQ(with([](LoopSpec& s) { s.input = "{}"; }), "--input needs --workflow");
  EXPECT_EQ(with([](LoopSpec& s) { s.every = "10"; }),
            "interval 10ms is shorter than the minimum of 1s");
  EXPECT_EQ(with([](LoopSpec& s) { s.tz = "UTC"; }), "--tz applies to --cron only");
  EXPECT_EQ(with([](LoopSpec& s) {
              s.every.clear();
              s.fixed_delay = true;
              s.cron = "* * * * *";
            }),
            "--fixed-delay needs --every");
  EXPECT_EQ(with([](LoopSpec& s) {
              s.every.clear();
              s.dynamic = true;
              s.min = "1h";
              s.max = "1m";
            }),
            "dynamic --max 1m is less than --min 1h");
}

}  // namespace
}  // namespace orrery
