#include "exec/command_runner.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "support/forked_children.h"
#include "support/temp_dir.h"

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

// A caller killed (-9) while its command runs takes the command's whole
// group with it: here a background process the command started, which is
// watched through a pidfd (readable once it has ended).
TEST(CommandRunnerTest, TheGroupOfACommandDiesWithItsCaller) {
  testing::TempDir dir;
  const std::string fifo = dir.file("pid");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const pid_t caller = ::fork();
  ASSERT_GE(caller, 0);
  if (caller == 0) {
    (void)system_commands().run(shell("sleep 1000 & echo $! > " + fifo + "; wait"));
    ::_exit(0);
  }
  const int reading = ::open(fifo.c_str(), O_RDONLY);  // until the command opens it
  ASSERT_GE(reading, 0);
  char text[32] = {};
  ASSERT_GT(::read(reading, text, sizeof text - 1), 0);
  ::close(reading);
  const pid_t background = std::stoi(text);
  const int watched = int(::syscall(SYS_pidfd_open, background, 0));
  ASSERT_GE(watched, 0) << "the background process is gone before its caller died";
  ASSERT_EQ(::kill(caller, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(caller, &status, 0), caller);
  pollfd ended{watched, POLLIN, 0};
  EXPECT_EQ(::poll(&ended, 1, testing::kChildWaitMs), 1)
      << "process " << background << " outlived its caller";
  ::close(watched);
  ::kill(background, SIGKILL);
}

}  // namespace
}  // namespace orrery
