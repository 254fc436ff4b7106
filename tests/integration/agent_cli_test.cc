// Agent targets from the outside: fake agent CLIs on PATH record the argv and
// stdin orrery starts them with.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_binary.h"
#include "support/temp_dir.h"
#include "support/test_files.h"

namespace orrery {
namespace {

using testing::read_file;

// A claude-style result with usage; the other fakes print it too.
constexpr const char* kResult =
    R"({"type":"result","result":"done","total_cost_usd":0.25,)"
    R"("usage":{"input_tokens":100,"cache_read_input_tokens":20,"output_tokens":7}})";

class AgentCli : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = dir_.file("bin");
    record_ = dir_.file("record");
    mkdir(bin_.c_str(), 0700);
    mkdir(record_.c_str(), 0700);
    for (const char* name : {"claude", "codewith", "codex"}) fake_agent(name);
    env_ = {{"PATH", bin_ + ":" + std::string(std::getenv("PATH"))}, {"AGENT_RECORD", record_}};
  }

  // A fake CLI that writes one argument per line and its stdin to the record
  // directory, then prints a JSON result.
  void fake_agent(const std::string& name) {
    const std::string path = bin_ + "/" + name;
    std::ofstream script(path);
    script << "#!/bin/sh\n"
           << "for arg in \"$@\"; do printf '%s\\n' \"$arg\"; done > \"$AGENT_RECORD/" << name
           << ".argv\"\n"
           << "cat > \"$AGENT_RECORD/" << name << ".stdin\"\n"
           << "echo '" << kResult << "'\n";
    script.close();
    chmod(path.c_str(), 0700);
  }

  RunResult orrery(std::vector<std::string> args) {
    args.insert(args.begin(), {"--home", dir_.file("home")});
    return run_orrery(args, env_);
  }

  std::vector<std::string> recorded_argv(const std::string& name) {
    return lines(read_file(record_ + "/" + name + ".argv"));
  }

  testing::TempDir dir_;
  std::string bin_;
  std::string record_;
  EnvVars env_;
};

TEST_F(AgentCli, ClaudeGetsItsFlagsAndThePromptOnStdin) {
  ASSERT_EQ(orrery({"add", "review", "--every", "1h", "--agent", "claude", "--prompt",
                    "review the diff", "--model", "sonnet", "--permission-mode", "plan"})
                .exit_code,
            0);
  const RunResult run = orrery({"trigger", "review", "--wait", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto document = nlohmann::json::parse(run.out);
  EXPECT_EQ(document["stdout"], std::string(kResult) + "\n");
  EXPECT_EQ(document["usage"]["input_tokens"], 120);
  EXPECT_EQ(document["usage"]["output_tokens"], 7);
  EXPECT_EQ(document["usage"]["cost_usd"], 0.25);
  EXPECT_EQ(recorded_argv("claude"),
            (std::vector<std::string>{"--safe-mode", "--setting-sources", "local",
                                      "--no-session-persistence", "--permission-mode", "plan", "-p",
                                      "--output-format", "json", "--model", "sonnet"}));
  EXPECT_EQ(read_file(record_ + "/claude.stdin"), "review the diff");
}

TEST_F(AgentCli, CodewithGetsThePromptAsItsLastArgument) {
  ASSERT_EQ(orrery({"add", "work", "--every", "1h", "--agent", "codewith", "--prompt", "ship it",
                    "--auth-profile", "team"})
                .exit_code,
            0);
  ASSERT_EQ(orrery({"trigger", "work", "--wait"}).exit_code, 0);
  const std::vector<std::string> argv = recorded_argv("codewith");
  ASSERT_FALSE(argv.empty());
  EXPECT_EQ(argv.back(), "ship it");
  EXPECT_EQ(argv[0], "--auth-profile");
  EXPECT_EQ(read_file(record_ + "/codewith.stdin"), "");
}

TEST_F(AgentCli, APromptFileIsReadWhenTheRunStarts) {
  const std::string prompt = dir_.file("prompt.md");
  std::ofstream(prompt) << "first version";
  ASSERT_EQ(
      orrery({"add", "p", "--every", "1h", "--agent", "codex", "--prompt-file", prompt}).exit_code,
      0);
  std::ofstream(prompt) << "edited after add";
  ASSERT_EQ(orrery({"trigger", "p", "--wait"}).exit_code, 0);
  EXPECT_EQ(read_file(record_ + "/codex.stdin"), "edited after add");
}

TEST_F(AgentCli, AMissingPromptFileIsRefusedAtAdd) {
  const RunResult result = orrery(
      {"add", "p", "--every", "1h", "--agent", "codex", "--prompt-file", dir_.file("absent.md")});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--prompt-file"), std::string::npos) << result.err;
  EXPECT_EQ(orrery({"ls", "--json"}).out, "[]\n");
}

TEST_F(AgentCli, AMissingAgentExecutableIsAFailedRunNotACrash) {
  env_[0].second = "/usr/bin:/bin";  // no fake agents
  ASSERT_EQ(orrery({"add", "g", "--every", "1h", "--agent", "gemini", "--prompt", "hi"}).exit_code,
            0);
  const RunResult run = orrery({"trigger", "g", "--wait", "--json"});
  EXPECT_EQ(run.exit_code, 1);
  const auto document = nlohmann::json::parse(run.out);
  EXPECT_EQ(document["status"], "failed");
  EXPECT_EQ(document["error"], "executable not found in PATH: gemini");
}

TEST_F(AgentCli, AUsageLimitedRunIsMarkedAndTheAccountCoolsDown) {
  const std::string path = bin_ + "/claude";
  std::ofstream(path) << "#!/bin/sh\ncat >/dev/null\n"
                      << "echo 'Claude AI usage limit reached|4102444800' >&2\nexit 1\n";
  chmod(path.c_str(), 0700);
  ASSERT_EQ(orrery({"add", "c", "--every", "1h", "--agent", "claude", "--prompt", "hi"}).exit_code,
            0);
  const std::time_t before = std::time(nullptr);
  const RunResult run = orrery({"trigger", "c", "--wait", "--json"});
  const std::time_t after = std::time(nullptr);
  EXPECT_EQ(run.exit_code, 1);
  const auto document = nlohmann::json::parse(run.out);
  EXPECT_EQ(document["status"], "failed");
  EXPECT_EQ(document["usage_limited"], true);
  // 4102444800 is 2100-01-01T00:00:00Z, the reset time the provider gave; a
  // cooldown is capped at 7 days from now (docs/storage.md).
  const std::string prefix = "usage limit reached (claude-usage-limit); claude cools down until ";
  const std::string error = document["error"].get<std::string>();
  ASSERT_EQ(error.rfind(prefix, 0), 0u) << error;
  std::tm until{};
  ASSERT_NE(strptime(error.substr(prefix.size()).c_str(), "%Y-%m-%dT%H:%M:%S", &until), nullptr)
      << error;
  const std::time_t until_s = timegm(&until);
  constexpr std::time_t kWeek = 7 * 24 * 3600;
  EXPECT_GE(until_s, before + kWeek - 1) << error;
  EXPECT_LE(until_s, after + kWeek) << error;
}

TEST_F(AgentCli, TheLoopDocumentShowsTheAgent) {
  ASSERT_EQ(orrery({"add", "a", "--every", "1h", "--agent", "codex", "--prompt", "x", "--sandbox",
                    "read-only", "--add-dir", "/tmp", "--agent-arg", "--profile"})
                .exit_code,
            0);
  const auto loop = nlohmann::json::parse(orrery({"show", "a", "--json"}).out);
  EXPECT_EQ(loop["target"]["type"], "agent");
  EXPECT_EQ(loop["target"]["provider"], "codex");
  EXPECT_EQ(loop["target"]["sandbox"], "read-only");
  EXPECT_EQ(loop["target"]["add_dirs"], nlohmann::json::array({"/tmp"}));
  EXPECT_EQ(loop["target"]["extra_args"], nlohmann::json::array({"--profile"}));
}

}  // namespace
}  // namespace orrery

namespace orrery {
namespace {

// A prompt file that changed after `add` into something that cannot be read
// as a prompt fails the run at once with the reason: nothing blocks on a
// FIFO, nothing reads /dev/zero without end, nothing is left `running`.
TEST_F(AgentCli, APromptFileThatBecameUnreadableFailsTheRunWithTheReason) {
  const std::string prompt = dir_.file("prompt.md");
  struct Change {
    std::string name;
    std::function<void()> apply;
    std::string reason;
  };
  const std::vector<Change> changes = {
      {"fifo", [&] { mkfifo(prompt.c_str(), 0600); }, prompt + " is not a regular file"},
      {"directory", [&] { mkdir(prompt.c_str(), 0700); }, prompt + " is a directory"},
      {"zero", [&] { symlink("/dev/zero", prompt.c_str()); }, prompt + " is not a regular file"},
      {"huge", [&] { std::ofstream(prompt) << std::string((1 << 20) + 1, 'p'); },
       prompt + " is larger than 1MiB (1048576 bytes), the most accepted"},
      {"gone", [] {}, prompt + " no longer exists"}};
  for (const Change& change : changes) {
    std::ofstream(prompt) << "review\n";
    const std::string name = "p-" + change.name;
    ASSERT_EQ(orrery({"add", name, "--every", "1h", "--agent", "claude", "--prompt-file", prompt})
                  .exit_code,
              0);
    std::filesystem::remove_all(prompt);
    change.apply();
    const RunResult run = orrery({"trigger", name, "--wait", "--json"});
    std::filesystem::remove_all(prompt);
    ASSERT_EQ(run.exit_code, 1) << change.name << "\n" << run.err;
    const auto document = nlohmann::json::parse(run.out);
    EXPECT_EQ(document["status"], "failed") << change.name;
    EXPECT_EQ(document["error"], "the prompt file " + change.reason) << change.name;
  }
}

}  // namespace
}  // namespace orrery
