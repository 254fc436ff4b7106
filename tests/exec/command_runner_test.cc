#include "exec/command_runner.h"

#include <gtest/gtest.h>

#include <string>

namespace orrery {
namespace {

CommandRequest shell(const std::string& line) {
  CommandRequest request;
  request.argv.push_back(std::string("/bin/sh"));
  request.argv.push_back(std::string("-c"));
  request.argv.push_back(line);
  request.env.emplace_back(std::string("PATH"), std::string("/usr/bin:/bin"));
  request.cwd = std::string("/");
  return request;
}

TEST(CommandRunnerTest, ExitStatusOutputAndItsTail) {
  auto result = system_commands().run(shell("echo out; echo err >&2; exit 3"));
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->exit_code, 3);
  EXPECT_FALSE(result->succeeded());
  EXPECT_EQ(result->stdout_text, "out\n");
  EXPECT_NE(result->tail.find("err"), std::string::npos);
  EXPECT_NE(result->tail.find("out"), std::string::npos);
}

TEST(CommandRunnerTest, HugeOutputIsCutToItsCapsWithoutBlocking) {
  CommandRequest request = shell("head -c 3000000 /dev/zero | tr '\\0' x; echo END");
  request.max_stdout = 1000;
  request.max_tail = 100;
  auto result = system_commands().run(request);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->succeeded());
  EXPECT_EQ(result->stdout_text.size(), 1000u);
  EXPECT_EQ(result->tail.size(), 100u);
  EXPECT_EQ(result->tail.substr(96), "END\n");
}

TEST(CommandRunnerTest, ACommandPastItsTimeoutIsKilledWithItsGroup) {
  CommandRequest request = shell("sleep 30 & sleep 30; echo never");
  request.timeout_ms = 200;
  auto result = system_commands().run(request);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->timed_out);
  EXPECT_FALSE(result->succeeded());
  EXPECT_EQ(result->signal, SIGKILL);
  EXPECT_LT(result->duration_ms, 10'000);
}

TEST(CommandRunnerTest, TicksComeWhileTheCommandRuns) {
  CommandRequest request = shell("sleep 0.5");
  int ticks = 0;
  request.on_tick = [&] { ++ticks; };
  request.tick_ms = 100;
  auto result = system_commands().run(request);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->succeeded());
  EXPECT_GE(ticks, 3);
  EXPECT_LE(ticks, result->duration_ms / 100 + 1);  // about one a tick, never more
}

TEST(CommandRunnerTest, AMissingExecutableIsAnErrorNamingIt) {
  CommandRequest request;
  request.argv.push_back(std::string("no-such-command-anywhere"));
  request.env.emplace_back(std::string("PATH"), std::string("/usr/bin:/bin"));
  request.cwd = std::string("/");
  auto result = system_commands().run(request);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("no-such-command-anywhere"), std::string::npos);
}

}  // namespace
}  // namespace orrery
