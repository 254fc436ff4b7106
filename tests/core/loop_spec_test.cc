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

TEST(LoopSpec, AWorkflowTargetKeepsItsReferenceAndInputForTheCommandToResolve) {
  LoopSpec workflow = every_minute();
  workflow.command.clear();
  workflow.workflow = "ship@2";
  workflow.input = R"({"channel": "beta"})";
  auto built = build(workflow);
  ASSERT_TRUE(built.ok()) << built.error().message;
  EXPECT_EQ(built->loop.target.type, TargetType::kWorkflow);
  EXPECT_EQ(built->loop.target.workflow_id, "ship@2");
  EXPECT_EQ(built->loop.target.input_json, R"({"channel": "beta"})");
  workflow.input.clear();
  auto without_input = build(workflow);
  ASSERT_TRUE(without_input.ok());
  EXPECT_EQ(without_input->loop.target.input_json, "{}");
  LoopSpec two = workflow;
  two.shell = "true";
  EXPECT_NE(error_of(two).find("give only one target"), std::string::npos);
  LoopSpec input_alone = every_minute();
  input_alone.input = "{}";
  EXPECT_EQ(error_of(input_alone), "--input needs --workflow");
}

TEST(LoopSpec, BadValuesNameTheOption) {
  const auto with = [](auto change) {
    LoopSpec spec = every_minute();
    change(spec);
    return error_of(spec);
  };
  EXPECT_EQ(with([](LoopSpec& s) { s.name.clear(); }), "loop name cannot be empty");
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
            "--tz: unknown time zone 'Nowhere/City': expected an IANA name such as Europe/Berlin "
            "or UTC");
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
            "--every 10ms is shorter than the minimum of 1s");
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
            "--max 1m is less than --min 1h");
}

// ---------------------------------------------------------------------------
// Limits and input rules (docs/scheduling.md "Limits", docs/cli.md).

struct DurationOption {
  const char* name;
  void (*set)(LoopSpec&, const std::string&);
  const char* maximum;  // as format_duration writes it
};

LoopSpec with_retries() {
  LoopSpec spec = every_minute();
  spec.max_attempts = 3;
  return spec;
}

const DurationOption kDurationOptions[] = {
    {"--every", [](LoopSpec& s, const std::string& v) { s.every = v; }, "365d"},
    {"--jitter", [](LoopSpec& s, const std::string& v) { s.jitter = v; }, "365d"},
    {"--min",
     [](LoopSpec& s, const std::string& v) {
       s.every.clear();
       s.dynamic = true;
       s.min = v;
       s.max = "365d";
     },
     "365d"},
    {"--max",
     [](LoopSpec& s, const std::string& v) {
       s.every.clear();
       s.dynamic = true;
       s.min = "1s";
       s.max = v;
     },
     "365d"},
    {"--catch-up-window", [](LoopSpec& s, const std::string& v) { s.catch_up_window = v; }, "365d"},
    {"--timeout", [](LoopSpec& s, const std::string& v) { s.timeout = v; }, "365d"},
    {"--idle-timeout", [](LoopSpec& s, const std::string& v) { s.idle_timeout = v; }, "365d"},
    {"--lease", [](LoopSpec& s, const std::string& v) { s.lease = v; }, "30d"},
    {"--retry-delay", [](LoopSpec& s, const std::string& v) { s.retry_delay = v; }, "30d"},
};

TEST(LoopSpecLimits, EveryDurationOptionAcceptsItsMaximumAndRefusesBeyondIt) {
  for (const DurationOption& option : kDurationOptions) {
    LoopSpec at_max = with_retries();
    option.set(at_max, option.maximum);
    auto built = build(at_max);
    EXPECT_TRUE(built.ok()) << option.name << " " << option.maximum << ": "
                            << (built ? "" : built.error().message);
    const std::vector<std::string> beyond_maximum{
        std::string(option.maximum) + "1ms", std::string(option.maximum) + "1s", "106751991167d",
        "9223372036854775807", "106752d"};
    for (const std::string& beyond : beyond_maximum) {
      LoopSpec spec = with_retries();
      option.set(spec, beyond);
      auto refused = build(spec);
      ASSERT_FALSE(refused.ok()) << option.name << " " << beyond;
      EXPECT_EQ(refused.error().message, std::string(option.name) + " " + beyond +
                                             " is longer than the maximum of " + option.maximum);
    }
    LoopSpec overflow = with_retries();
    option.set(overflow, "9223372036854775808");
    auto refused = build(overflow);
    ASSERT_FALSE(refused.ok()) << option.name;
    EXPECT_EQ(refused.error().message.rfind(std::string(option.name) + ": invalid duration", 0), 0u)
        << refused.error().message;
  }
}

TEST(LoopSpecLimits, AnIntervalNearTheMaximumGivesSlotsInOrder) {
  LoopSpec spec = every_minute();
  spec.every = "365d";
  auto built = build(spec);
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(built->loop.next_run_at, kNow + 365 * 86'400'000LL);
}

TEST(LoopSpecZones, ATimeWithoutAnOffsetIsWallTimeInTz) {
  LoopSpec once = every_minute();
  once.every.clear();
  once.at = "2027-06-01 09:00";
  once.tz = "Asia/Tokyo";
  EXPECT_EQ(build(once)->loop.next_run_at, at("2027-06-01T00:00:00Z"));
  once.tz = "Europe/Berlin";
  EXPECT_EQ(build(once)->loop.next_run_at, at("2027-06-01T07:00:00Z"));
  once.tz.clear();  // the given local zone
  EXPECT_EQ(build_loop(once, kId, kNow, testing::zone("America/New_York"))->loop.next_run_at,
            at("2027-06-01T13:00:00Z"));

  LoopSpec expiring = every_minute();
  expiring.expires = "2027-06-01 09:00";
  expiring.tz = "Asia/Tokyo";
  EXPECT_EQ(build(expiring)->loop.expires_at, at("2027-06-01T00:00:00Z"));
  // An offset in the text wins over --tz.
  expiring.expires = "2027-06-01T09:00:00Z";
  EXPECT_EQ(build(expiring)->loop.expires_at, at("2027-06-01T09:00:00Z"));

  LoopSpec dynamic = every_minute();
  dynamic.every.clear();
  dynamic.dynamic = true;
  dynamic.tz = "UTC";
  EXPECT_TRUE(build(dynamic).ok());
}

// One value per variable: a second one would silently win or lose.
TEST(LoopSpecRefused, AVariableGivenTwiceIsRefused) {
  LoopSpec twice = every_minute();
  twice.env = {"K=1", "A=2", "K=3"};
  EXPECT_EQ(error_of(twice), "--env K is given twice; give each variable once");
  LoopSpec secret_twice = every_minute();
  secret_twice.secret_env = {"T=a", "T=b"};
  EXPECT_EQ(error_of(secret_twice),
            "--secret-env T is given twice (or also as --env); give each variable once");
  LoopSpec both = every_minute();
  both.env = {"T=plain"};
  both.secret_env = {"T=hidden"};
  EXPECT_EQ(error_of(both),
            "--secret-env T is given twice (or also as --env); give each variable once");
  LoopSpec distinct = every_minute();
  distinct.env = {"A=1", "B=1"};
  distinct.secret_env = {"C=1", "D=1"};
  EXPECT_TRUE(build(distinct).ok());
}

TEST(LoopSpecRefused, OptionsThatCannotTakeEffectAreNamed) {
  const auto with = [](auto change) {
    LoopSpec spec = every_minute();
    change(spec);
    return error_of(spec);
  };
  EXPECT_EQ(with([](LoopSpec& s) {
              s.every.clear();
              s.dynamic = true;
              s.jitter = "1m";
            }),
            "--jitter does not apply to --dynamic: its runs choose their own time");
  EXPECT_EQ(with([](LoopSpec& s) {
              s.every.clear();
              s.at = "+1h";
              s.expires = "+10m";
            }),
            "--expires +10m is not after the first slot 2026-06-01T13:00:00.000Z: the loop would "
            "never run");
  EXPECT_EQ(with([](LoopSpec& s) {
              s.every = "1h";
              s.expires = "+2s";
            }),
            "--expires +2s is not after the first slot 2026-06-01T13:00:00.000Z: the loop would "
            "never run");
  // Expiring exactly at the first slot: that slot is not due (slots at or after expiry).
  EXPECT_NE(with([](LoopSpec& s) {
              s.every = "1h";
              s.expires = "+1h";
            }).find("the loop would never run"),
            std::string::npos);
  EXPECT_NE(with([](LoopSpec& s) {
              s.every.clear();
              s.cron = "0 0 1 1 *";
              s.expires = "2026-12-31T00:00:00Z";
            }).find("the loop would never run"),
            std::string::npos);
  EXPECT_EQ(with([](LoopSpec& s) {
              s.every.clear();
              s.at = "+1h";
              s.catch_up_limit = 5;
            }),
            "--catch-up-limit has no effect on a --at schedule: it has one slot at a time");
  EXPECT_EQ(with([](LoopSpec& s) {
              s.every.clear();
              s.dynamic = true;
              s.catch_up_limit = 5;
            }),
            "--catch-up-limit has no effect on a --dynamic schedule: it has one slot at a time");
  EXPECT_EQ(with([](LoopSpec& s) { s.retry_delay = "5m"; }),
            "--retry-delay has no effect with a single attempt: give --max-attempts 2 or more");
  EXPECT_EQ(with([](LoopSpec& s) {
              s.max_attempts = 1;
              s.retry_backoff = "exponential";
            }),
            "--retry-backoff has no effect with a single attempt: give --max-attempts 2 or more");
  EXPECT_EQ(with([](LoopSpec& s) {
              s.timeout = "10m";
              s.idle_timeout = "10m";
            }),
            "--idle-timeout 10m has no effect: it is not shorter than --timeout 10m");
  EXPECT_EQ(with([](LoopSpec& s) {
              s.command.clear();
              s.agent = "gemini";
              s.prompt = "hi";
              s.effort = "high";
            }),
            "agent gemini: --effort is not supported for gemini");
}

TEST(LoopSpecRefused, ALoopWhoseFirstSlotFallsAfter9999IsRefused) {
  LoopSpec once = every_minute();
  once.every.clear();
  once.at = "9999-12-31T23:59:59Z";
  once.jitter = "365d";  // the offset for kId pushes the slot past the end of 9999
  ASSERT_GT(jitter_offset(kId, 365 * 86'400'000LL), 1000);
  EXPECT_EQ(error_of(once), "the loop would never run: its first slot falls after the year 9999");
}

TEST(LoopSpecText, NamesAndStoredTextFollowTheRules) {
  const auto with = [](auto change) {
    LoopSpec spec = every_minute();
    change(spec);
    return error_of(spec);
  };
  EXPECT_NE(with([](LoopSpec& s) { s.name = "a\nb"; }).find("contains the control character"),
            std::string::npos);
  EXPECT_NE(with([](LoopSpec& s) { s.name = " "; }).find("white space"), std::string::npos);
  EXPECT_NE(with([](LoopSpec& s) { s.name = std::string(101, 'n'); }).find("at most 100"),
            std::string::npos);
  EXPECT_EQ(with([](LoopSpec& s) { s.description = "bad\xff"; }),
            "--description 'bad\\xff' is not valid UTF-8 (invalid byte at offset 3)");
  EXPECT_EQ(with([](LoopSpec& s) { s.env = {"A=\xc3"}; }).rfind("--env 'A=\\xc3' is not valid", 0),
            0u);
  EXPECT_EQ(with([](LoopSpec& s) {
              s.command = {"/bin/echo", "\xfe"};
            }).rfind("the command after -- '\\xfe' is not valid UTF-8", 0),
            0u);
  EXPECT_EQ(with([](LoopSpec& s) {
              s.command.clear();
              s.shell = "echo \xed\xa0\x80";
            }).rfind("--shell ", 0),
            0u);
  EXPECT_EQ(with([](LoopSpec& s) { s.machine = {"os=\x80"}; }).rfind("--machine ", 0), 0u);
  // A description may hold any valid text, newlines included.
  LoopSpec fine = every_minute();
  fine.description = "line one\nline two \xe2\x9c\x93";
  EXPECT_TRUE(build(fine).ok());
}

TEST(LoopSpecPaths, RelativePathsAreMadeAbsoluteAgainstTheBaseDirectory) {
  LoopSpec spec = every_minute();
  spec.paths.dir = "/home/u/project";
  spec.cwd = "sub/../work/";
  EXPECT_EQ(build(spec)->loop.target.cwd, "/home/u/project/work");
  spec.cwd = ".";
  EXPECT_EQ(build(spec)->loop.target.cwd, "/home/u/project");
  spec.cwd = "/abs//dir/./x/..";
  EXPECT_EQ(build(spec)->loop.target.cwd, "/abs/dir");

  LoopSpec agent = every_minute();
  agent.command.clear();
  agent.agent = "codex";
  agent.prompt_file = "prompts/review.md";
  agent.add_dirs = {".", "../shared"};
  agent.cwd = "repo";
  agent.paths.dir = "/w";
  auto built = build(agent);
  ASSERT_TRUE(built.ok()) << built.error().message;
  EXPECT_EQ(built->loop.target.agent->prompt_file, "/w/prompts/review.md");
  EXPECT_EQ(built->loop.target.agent->add_dirs, (std::vector<std::string>{"/w", "/shared"}));
  EXPECT_EQ(built->loop.target.agent->cwd, "/w/repo");
  EXPECT_EQ(built->loop.target.cwd, "/w/repo");
}

TEST(LoopSpecPaths, ARelativePathWithoutABaseIsRefused) {
  LoopSpec spec = every_minute();
  spec.cwd = "sub";
  EXPECT_EQ(error_of(spec),
            "--cwd: path 'sub': it is relative and there is no directory to read it against; "
            "give an absolute path");
}

TEST(LoopSpecLogLimit, ParsedWithinItsRange) {
  LoopSpec spec = every_minute();
  EXPECT_EQ(build(spec)->loop.log_limit_bytes, 64LL << 20);
  const std::pair<const char*, std::int64_t> accepted[] = {{"64KiB", 64 << 10},
                                                           {"1MB", 1'000'000},
                                                           {"512KiB", 512 << 10},
                                                           {"16GiB", 16LL << 30},
                                                           {"65536", 65536}};
  for (const auto& [text, bytes] : accepted) {
    spec.log_limit = text;
    auto built = build(spec);
    ASSERT_TRUE(built.ok()) << text << ": " << built.error().message;
    EXPECT_EQ(built->loop.log_limit_bytes, bytes);
  }
  for (const char* text : {"1KiB", "65535", "17GiB", "9223372036854775807"}) {
    spec.log_limit = text;
    EXPECT_EQ(error_of(spec),
              std::string("--log-limit ") + text + " is out of range 64KiB to 16GiB");
  }
  spec.log_limit = "lots";
  EXPECT_EQ(error_of(spec).rfind("--log-limit: invalid size 'lots'", 0), 0u);
}

}  // namespace
}  // namespace orrery

namespace orrery {
namespace {

TEST(LoopSpec, AFeedNeedsATargetWithOutputOfItsOwn) {
  for (const bool workflow : {false, true}) {
    LoopSpec spec;
    spec.name = "issues";
    spec.every = "5m";
    spec.feed = "inbox";
    if (workflow) {
      spec.workflow = "triage";
    } else {
      spec.shell = "gh issue list";
    }
    auto built = build_loop(spec, kId, kNow, TimeZone::utc());
    EXPECT_EQ(built.ok(), !workflow);
    if (built) {
      EXPECT_EQ(built->loop.feed_route_id, "inbox");
    } else {
      EXPECT_EQ(built.error().code, ErrorCode::kUsage);
    }
  }
  LoopSpec bad;
  bad.name = "issues";
  bad.every = "5m";
  bad.shell = "true";
  bad.feed = "in\xffox";
  auto refused = build_loop(bad, kId, kNow, TimeZone::utc());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("--feed"), std::string::npos) << refused.error().message;
}

}  // namespace
}  // namespace orrery
