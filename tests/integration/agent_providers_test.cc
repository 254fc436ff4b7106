// Every agent provider from the outside: a fake CLI of that name on PATH
// records the argv and stdin orrery starts it with. The expected argv are
// written out by hand from docs/execution.md.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_binary.h"
#include "support/temp_dir.h"
#include "support/test_files.h"

namespace orrery {
namespace {

using testing::read_file;

using Args = std::vector<std::string>;

struct ProviderCase {
  const char* name;
  const char* executable;  // what orrery starts
  Args add_options;        // after --agent NAME --prompt "do it"
  Args expected_argv;      // argv[1..] the fake sees
  bool prompt_on_stdin;
};

// Milliseconds since the epoch of a YYYY-MM-DDTHH:MM:SS.mmmZ time.
std::int64_t millis(const std::string& text) {
  std::tm tm{};
  int ms = 0;
  std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
              &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms);
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return std::int64_t(timegm(&tm)) * 1000 + ms;
}

class AgentProviders : public ::testing::TestWithParam<ProviderCase> {
 protected:
  void SetUp() override {
    bin_ = dir_.file("bin");
    mkdir(bin_.c_str(), 0700);
    env_ = {{"PATH", bin_ + ":" + std::string(std::getenv("PATH"))}, {"AGENT_RECORD", dir_.path()}};
  }

  void fake(const std::string& name, const std::string& body) {
    const std::string path = bin_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body;
    chmod(path.c_str(), 0700);
  }

  RunResult orrery(Args args) {
    args.insert(args.begin(), {"--home", dir_.file("home")});
    return run_orrery(args, env_);
  }

  testing::TempDir dir_;
  std::string bin_;
  EnvVars env_;
};

TEST_P(AgentProviders, StartsTheCliWithItsArgvAndPrompt) {
  const ProviderCase& c = GetParam();
  fake(c.executable,
       "for arg in \"$@\"; do printf '%s\\n' \"$arg\"; done > \"$AGENT_RECORD/argv\"\n"
       "cat > \"$AGENT_RECORD/stdin\"\n");
  Args add{"add", "a", "--every", "1h", "--agent", c.name, "--prompt", "do it"};
  add.insert(add.end(), c.add_options.begin(), c.add_options.end());
  const RunResult added = orrery(add);
  ASSERT_EQ(added.exit_code, 0) << added.err;
  const RunResult run = orrery({"trigger", "a", "--wait"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  Args expected = c.expected_argv;
  if (!c.prompt_on_stdin) expected.push_back("do it");
  EXPECT_EQ(lines(read_file(dir_.file("argv"))), expected);
  EXPECT_EQ(read_file(dir_.file("stdin")), c.prompt_on_stdin ? "do it" : "");
}

INSTANTIATE_TEST_SUITE_P(
    Providers, AgentProviders,
    ::testing::Values(
        ProviderCase{"claude",
                     "claude",
                     {"--effort", "high"},
                     {"--safe-mode", "--setting-sources", "local", "--no-session-persistence", "-p",
                      "--output-format", "json", "--effort", "high"},
                     true},
        ProviderCase{"cursor",
                     "agent",
                     {"--permission-mode", "bypass"},
                     {"-p", "--force", "--sandbox", "enabled"},
                     true},
        ProviderCase{"codewith",
                     "codewith",
                     {"--sandbox", "read-only"},
                     {"--ask-for-approval", "never", "--sandbox", "read-only", "agent", "start"},
                     false},
        ProviderCase{"codex",
                     "codex",
                     {"--config-isolation", "none"},
                     {"--ask-for-approval", "never", "exec", "--json", "--ephemeral", "--sandbox",
                      "workspace-write", "--skip-git-repo-check"},
                     true},
        ProviderCase{"aicopilot", "aicopilot", {}, {"run", "--format", "json", "--pure"}, true},
        ProviderCase{"opencode",
                     "opencode",
                     {"--model", "openrouter/x"},
                     {"run", "--format", "json", "--pure", "--model", "openrouter/x"},
                     true},
        ProviderCase{"gemini", "gemini", {}, {"--output-format", "json"}, true}),
    [](const auto& info) { return std::string(info.param.name); });

class AgentUsageLimits : public AgentProviders {};

TEST_F(AgentUsageLimits, WithoutAResetTimeTheAccountCoolsDownForFiveMinutes) {
  fake("codex", "cat >/dev/null\necho 'error: usage_limit_reached' >&2\nexit 1\n");
  ASSERT_EQ(orrery({"add", "x", "--every", "1h", "--agent", "codex", "--prompt", "p"}).exit_code,
            0);
  const RunResult run = orrery({"--json", "trigger", "x", "--wait"});
  ASSERT_EQ(run.exit_code, 1);
  const auto document = nlohmann::json::parse(run.out);
  EXPECT_EQ(document["usage_limited"], true);
  const std::string error = document["error"];
  EXPECT_EQ(error.rfind("usage limit reached (codex-usage-limit); codex cools down until ", 0), 0u)
      << error;
  // Five minutes from when the limit was seen, just before the run finished.
  const std::string until = error.substr(error.rfind(' ') + 1);
  ASSERT_TRUE(is_time_text(until)) << until;
  const std::int64_t cooldown = millis(until) - millis(document["finished_at"]);
  EXPECT_LE(cooldown, 5 * 60'000);
  EXPECT_GT(cooldown, 5 * 60'000 - 5'000);
}

TEST_F(AgentUsageLimits, AnOrdinaryFailureIsNotUsageLimited) {
  fake("codex", "cat >/dev/null\necho 'error: tests failed' >&2\nexit 1\n");
  ASSERT_EQ(orrery({"add", "x", "--every", "1h", "--agent", "codex", "--prompt", "p"}).exit_code,
            0);
  const auto document = nlohmann::json::parse(orrery({"--json", "trigger", "x", "--wait"}).out);
  EXPECT_EQ(document["usage_limited"], false);
  EXPECT_EQ(document["error"], "exit status 1");
}

TEST_F(AgentUsageLimits, AWorkingDirectoryRemovedAfterAddFailsTheRunClearly) {
  const std::string work = dir_.file("work");
  mkdir(work.c_str(), 0700);
  ASSERT_EQ(orrery({"add", "w", "--every", "1h", "--cwd", work, "--", "true"}).exit_code, 0);
  rmdir(work.c_str());
  const auto document = nlohmann::json::parse(orrery({"--json", "trigger", "w", "--wait"}).out);
  EXPECT_EQ(document["status"], "failed");
  EXPECT_EQ(
      document["error"].get<std::string>().rfind("working directory " + work + " is not usable", 0),
      0u)
      << document.dump();
}

}  // namespace
}  // namespace orrery
