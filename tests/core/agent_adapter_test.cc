#include "core/agent_adapter.h"

#include <gtest/gtest.h>

namespace orrery {
namespace {

using Argv = std::vector<std::string>;

AgentTarget agent(AgentProvider provider) {
  AgentTarget target;
  target.provider = provider;
  target.prompt = "fix the tests";
  return target;
}

AgentInvocation build(const AgentTarget& target) {
  auto invocation = build_agent_invocation(target, target.prompt);
  EXPECT_TRUE(invocation.ok()) << (invocation ? "" : invocation.error().message);
  return invocation ? *invocation : AgentInvocation{};
}

std::string refusal(const AgentTarget& target) {
  auto valid = validate_agent(target);
  EXPECT_FALSE(valid.ok());
  return valid ? "" : valid.error().message;
}

TEST(AgentAdapter, ClaudeReadsThePromptOnStdinWithJsonOutput) {
  AgentTarget target = agent(AgentProvider::kClaude);
  target.model = "sonnet";
  target.variant = "high";
  target.permission_mode = "bypass";
  const AgentInvocation invocation = build(target);
  EXPECT_EQ(invocation.argv,
            (Argv{"claude", "--safe-mode", "--setting-sources", "local", "--no-session-persistence",
                  "--permission-mode", "bypassPermissions", "-p", "--output-format", "json",
                  "--model", "sonnet", "--effort", "high"}));
  EXPECT_EQ(invocation.stdin_text, "fix the tests");
}

TEST(AgentAdapter, ConfigIsolationNoneDropsTheSafeFlags) {
  AgentTarget target = agent(AgentProvider::kClaude);
  target.config_isolation = "none";
  target.permission_mode = "plan";
  EXPECT_EQ(build(target).argv,
            (Argv{"claude", "--permission-mode", "plan", "-p", "--output-format", "json"}));
}

TEST(AgentAdapter, CodexRunsExecJsonInAWorkspaceSandbox) {
  AgentTarget target = agent(AgentProvider::kCodex);
  target.variant = "medium";
  target.cwd = "/repo";
  target.add_dirs = {"/shared"};
  target.model = "gpt-5";
  target.extra_args = {"--profile", "ci"};
  const AgentInvocation invocation = build(target);
  EXPECT_EQ(invocation.argv, (Argv{"codex",
                                   "-c",
                                   "model_reasoning_effort=\"medium\"",
                                   "--ask-for-approval",
                                   "never",
                                   "exec",
                                   "--json",
                                   "--ephemeral",
                                   "--sandbox",
                                   "workspace-write",
                                   "--skip-git-repo-check",
                                   "--ignore-rules",
                                   "--cd",
                                   "/repo",
                                   "--add-dir",
                                   "/shared",
                                   "--model",
                                   "gpt-5",
                                   "--profile",
                                   "ci"}));
  EXPECT_EQ(invocation.stdin_text, "fix the tests");
}

TEST(AgentAdapter, CodexBypassMeansFullAccessUnlessASandboxIsGiven) {
  AgentTarget target = agent(AgentProvider::kCodex);
  target.permission_mode = "bypass";
  EXPECT_NE(std::find(build(target).argv.begin(), build(target).argv.end(), "danger-full-access"),
            build(target).argv.end());
  target.sandbox = "read-only";
  const Argv argv = build(target).argv;
  EXPECT_NE(std::find(argv.begin(), argv.end(), "read-only"), argv.end());
}

TEST(AgentAdapter, CodewithTakesThePromptAsItsLastArgument) {
  AgentTarget target = agent(AgentProvider::kCodewith);
  target.auth_profile = "work";
  target.cwd = "/repo";
  const AgentInvocation invocation = build(target);
  EXPECT_EQ(invocation.argv, (Argv{"codewith", "--auth-profile", "work", "--ask-for-approval",
                                   "never", "--sandbox", "workspace-write", "--cd", "/repo",
                                   "agent", "start", "--cwd", "/repo", "fix the tests"}));
  EXPECT_FALSE(invocation.stdin_text.has_value());
}

TEST(AgentAdapter, CursorRunsAgentWithItsSandboxOnByDefault) {
  AgentTarget target = agent(AgentProvider::kCursor);
  target.permission_mode = "plan";
  target.model = "auto";
  EXPECT_EQ(build(target).argv,
            (Argv{"agent", "-p", "--mode", "plan", "--sandbox", "enabled", "--model", "auto"}));
  target.permission_mode = "bypass";
  target.sandbox = "disabled";
  target.model.clear();
  EXPECT_EQ(build(target).argv, (Argv{"agent", "-p", "--force", "--sandbox", "disabled"}));
}

TEST(AgentAdapter, OpencodeAndAicopilotRunWithJsonFormat) {
  AgentTarget target = agent(AgentProvider::kOpencode);
  target.model = "openrouter/google/gemini-2.5-flash";
  target.permission_mode = "bypass";
  target.cwd = "/repo";
  EXPECT_EQ(build(target).argv,
            (Argv{"opencode", "run", "--format", "json", "--pure", "--dangerously-skip-permissions",
                  "--dir", "/repo", "--model", "openrouter/google/gemini-2.5-flash"}));
  AgentTarget copilot = agent(AgentProvider::kAicopilot);
  EXPECT_EQ(build(copilot).argv, (Argv{"aicopilot", "run", "--format", "json", "--pure"}));
}

TEST(AgentAdapter, GeminiReadsStdin) {
  AgentTarget target = agent(AgentProvider::kGemini);
  target.model = "gemini-2.5-pro";
  target.permission_mode = "bypass";
  const AgentInvocation invocation = build(target);
  EXPECT_EQ(invocation.argv,
            (Argv{"gemini", "--output-format", "json", "--yolo", "--model", "gemini-2.5-pro"}));
  EXPECT_EQ(invocation.stdin_text, "fix the tests");
}

TEST(AgentAdapter, EveryRefusedOptionIsNamed) {
  const auto with = [](AgentProvider provider, auto change) {
    AgentTarget target = agent(provider);
    change(target);
    return refusal(target);
  };
  EXPECT_EQ(with(AgentProvider::kClaude, [](AgentTarget& t) { t.prompt.clear(); }),
            "agent claude: give exactly one of --prompt TEXT or --prompt-file FILE");
  EXPECT_EQ(with(AgentProvider::kClaude, [](AgentTarget& t) { t.prompt_file = "p.md"; }),
            "agent claude: give exactly one of --prompt TEXT or --prompt-file FILE");
  EXPECT_EQ(with(AgentProvider::kClaude, [](AgentTarget& t) { t.permission_mode = "yolo"; }),
            "agent claude: --permission-mode 'yolo' is not one of default, plan, auto, bypass");
  EXPECT_EQ(with(AgentProvider::kCodex, [](AgentTarget& t) { t.permission_mode = "plan"; }),
            "agent codex: --permission-mode plan is supported only for claude and cursor");
  EXPECT_EQ(with(AgentProvider::kCursor, [](AgentTarget& t) { t.permission_mode = "auto"; }),
            "agent cursor: --permission-mode auto is supported only for claude");
  EXPECT_EQ(with(AgentProvider::kClaude, [](AgentTarget& t) { t.sandbox = "read-only"; }),
            "agent claude: --sandbox is supported only for codewith, codex and cursor");
  EXPECT_EQ(with(AgentProvider::kCodex, [](AgentTarget& t) { t.sandbox = "enabled"; }),
            "agent codex: --sandbox 'enabled' is not one of read-only, workspace-write, "
            "danger-full-access");
  EXPECT_EQ(with(AgentProvider::kCursor, [](AgentTarget& t) { t.sandbox = "read-only"; }),
            "agent cursor: --sandbox 'read-only' is not one of enabled, disabled");
  EXPECT_EQ(with(AgentProvider::kOpencode, [](AgentTarget&) {}),
            "agent opencode: --model is required for opencode: pass a provider/model id such as "
            "openrouter/google/gemini-2.5-flash");
  EXPECT_EQ(with(AgentProvider::kCursor, [](AgentTarget& t) { t.variant = "high"; }),
            "agent cursor: --effort is not supported for cursor");
  EXPECT_EQ(with(AgentProvider::kCodex, [](AgentTarget& t) { t.agent = "reviewer"; }),
            "agent codex: --agent-name is not supported for codex");
  EXPECT_EQ(with(AgentProvider::kClaude, [](AgentTarget& t) { t.auth_profile = "work"; }),
            "agent claude: --auth-profile is supported only for codewith");
  EXPECT_EQ(with(AgentProvider::kClaude, [](AgentTarget& t) { t.add_dirs = {"/x"}; }),
            "agent claude: --add-dir is supported only for codewith and codex");
  EXPECT_EQ(with(AgentProvider::kCodewith, [](AgentTarget& t) { t.extra_args = {"--json"}; }),
            "agent codewith: extra argument '--json' is refused: codewith runs use durable agent "
            "start, not exec or ephemeral flags");
  EXPECT_EQ(with(AgentProvider::kClaude, [](AgentTarget& t) { t.config_isolation = "strict"; }),
            "agent claude: --config-isolation 'strict' is not one of safe, none");
}

// An option the provider's command line would drop is refused, never ignored.
TEST(AgentAdapter, OptionsAProviderCannotUseAreRefused) {
  const auto with = [](AgentProvider provider, auto change) {
    AgentTarget target = agent(provider);
    change(target);
    return refusal(target);
  };
  EXPECT_EQ(with(AgentProvider::kGemini, [](AgentTarget& t) { t.variant = "high"; }),
            "agent gemini: --effort is not supported for gemini");
  for (const char* isolation : {"safe", "none"}) {
    EXPECT_EQ(with(AgentProvider::kGemini, [&](AgentTarget& t) { t.config_isolation = isolation; }),
              "agent gemini: --config-isolation is not supported for gemini");
    EXPECT_EQ(
        with(AgentProvider::kCodewith, [&](AgentTarget& t) { t.config_isolation = isolation; }),
        "agent codewith: --config-isolation is not supported for codewith");
  }
}

// Every option each provider accepts appears in its command line.
TEST(AgentAdapter, EveryAcceptedEffortReachesTheCommandLine) {
  for (AgentProvider provider :
       {AgentProvider::kClaude, AgentProvider::kCodewith, AgentProvider::kCodex,
        AgentProvider::kAicopilot, AgentProvider::kOpencode}) {
    AgentTarget target = agent(provider);
    target.model = "m/x";
    target.variant = "effort-7";
    auto invocation = build_agent_invocation(target, "hello");
    ASSERT_TRUE(invocation.ok()) << provider_name(provider) << ": " << invocation.error().message;
    std::string line;
    for (const std::string& arg : invocation->argv) line += arg + " ";
    EXPECT_NE(line.find("effort-7"), std::string::npos) << provider_name(provider) << ": " << line;
  }
}

TEST(AgentAdapter, ProviderNames) {
  EXPECT_EQ(*parse_provider("codex"), AgentProvider::kCodex);
  EXPECT_EQ(parse_provider("chatgpt").error().message,
            "invalid agent provider 'chatgpt': expected claude, cursor, codewith, codex, "
            "aicopilot, opencode, gemini");
}

}  // namespace
}  // namespace orrery
