#include "exec/supervisor_forker.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "support/temp_dir.h"
#include "support/test_files.h"

namespace orrery {
namespace {

using testing::read_file;

// Waits (bounded) for the process behind `pidfd` to end; whether it did.
bool ended(int pidfd, int timeout_ms = 10'000) {
  pollfd watched{pidfd, POLLIN, 0};
  return poll(&watched, 1, timeout_ms) == 1;
}

// Where describe_start writes.
std::string facts_of(const std::string& run_dir) { return run_dir + ".facts"; }

std::string target_of(int fd) {
  char target[64] = {};
  (void)!readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), target, sizeof target - 1);
  return target;
}

// Writes, beside the run directory it was given, what a supervisor must
// start with.
int describe_start(const ForkRequest& request) {
  std::ostringstream facts;
  facts << "run=" << request.run_id << " by=" << request.claimed_by << " token=" << request.token
        << " lease=" << request.lease_ms << " session_leader=" << (getsid(0) == getpid());
  sigset_t blocked;
  sigprocmask(SIG_SETMASK, nullptr, &blocked);
  facts << " sigchld_blocked=" << sigismember(&blocked, SIGCHLD);
  int open_above_2 = 0;
  for (int fd = 3; fd < 256; ++fd) open_above_2 += fcntl(fd, F_GETFD) >= 0;
  facts << " open_above_2=" << open_above_2;
  facts << " stdin=" << target_of(0) << " stdout=" << target_of(1) << " stderr=" << target_of(2);
  std::ofstream(facts_of(request.run_dir)) << facts.str() << '\n';
  return 7;
}

TEST(SupervisorForker, ASupervisorStartsAloneInItsSessionWithNothingOpen) {
  testing::TempDir dir;
  auto forker = SupervisorForker::start([] { return SupervisorForker::Runner(describe_start); });
  ASSERT_TRUE(forker.ok()) << forker.error().message;
  // A descriptor opened after the server started never reaches a supervisor.
  const int unrelated = open("/dev/null", O_RDONLY);
  for (const char* run : {"run-1", "run-2"}) {
    const std::string run_dir = dir.file(run);
    auto forked = forker->fork_supervisor({run, "daemon@test", "g1-token", run_dir, 90'000});
    ASSERT_TRUE(forked.ok()) << forked.error().message;
    EXPECT_GT(forked->pid, 0);
    ASSERT_GE(forked->pidfd, 0);
    // Read before the supervisor could end: usable even if it ends at once.
    EXPECT_TRUE(forked->started_at.has_value());
    ASSERT_TRUE(ended(forked->pidfd));
    ::close(forked->pidfd);
    EXPECT_EQ(read_file(facts_of(run_dir)),
              "run=" + std::string(run) +
                  " by=daemon@test token=g1-token lease=90000 session_leader=1 sigchld_blocked=0 "
                  "open_above_2=0 stdin=/dev/null stdout=/dev/null stderr=/dev/null\n");
  }
  ::close(unrelated);
}

TEST(SupervisorForker, AServerThatDiedIsReportedGoneAndStaysGone) {
  testing::TempDir dir;
  auto forker = SupervisorForker::start([] { return SupervisorForker::Runner(describe_start); });
  ASSERT_TRUE(forker.ok());
  const int server = int(syscall(SYS_pidfd_open, forker->server_pid(), 0));
  ASSERT_GE(server, 0);
  ::kill(forker->server_pid(), SIGKILL);
  ASSERT_TRUE(ended(server));
  ::close(server);
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto forked =
        forker->fork_supervisor({"run-1", "daemon@test", "g1-token", dir.file("run-1"), 1000});
    ASSERT_FALSE(forked.ok());
    EXPECT_EQ(forked.error().message, "the supervisor fork server is gone");
    EXPECT_TRUE(forker->server_gone());
  }
}

TEST(SupervisorForker, TheServerExitsWhenItsOwnerLetsGoAndItsSupervisorsRunOn) {
  testing::TempDir dir;
  // A supervisor that outlives the server: it waits for a file to appear.
  const std::string go = dir.file("go");
  auto forker = SupervisorForker::start([go] {
    return [go](const ForkRequest& request) {
      for (int i = 0; i < 1000 && access(go.c_str(), F_OK) != 0; ++i) usleep(10'000);
      std::ofstream(facts_of(request.run_dir)) << "finished\n";
      return 0;
    };
  });
  ASSERT_TRUE(forker.ok());
  const int server = int(syscall(SYS_pidfd_open, forker->server_pid(), 0));
  ASSERT_GE(server, 0);
  auto forked =
      forker->fork_supervisor({"run-1", "daemon@test", "g1-token", dir.file("run-1"), 1000});
  ASSERT_TRUE(forked.ok());
  { SupervisorForker gone = std::move(*forker); }
  ASSERT_TRUE(ended(server));
  EXPECT_FALSE(ended(forked->pidfd, 0));  // still running
  std::ofstream(go) << "";
  ASSERT_TRUE(ended(forked->pidfd));
  EXPECT_EQ(read_file(facts_of(dir.file("run-1"))), "finished\n");
  ::close(server);
  ::close(forked->pidfd);
}

TEST(SupervisorForker, TheNextSupervisorIsPreparedBeforeItsRequestInItsOwnProcess) {
  testing::TempDir dir;
  const std::string prepared = dir.file("prepared");
  // Each spare notes its pid when prepared; its runner prints the pid too.
  auto forker = SupervisorForker::start([prepared] {
    std::ofstream(prepared, std::ios::app) << getpid() << '\n';
    return [](const ForkRequest& request) {
      std::ofstream(facts_of(request.run_dir)) << getpid() << '\n';
      return 0;
    };
  });
  ASSERT_TRUE(forker.ok());
  auto forked =
      forker->fork_supervisor({"run-1", "daemon@test", "g1-token", dir.file("run-1"), 1000});
  ASSERT_TRUE(forked.ok()) << forked.error().message;
  ASSERT_TRUE(ended(forked->pidfd));
  ::close(forked->pidfd);
  const std::string pid = std::to_string(forked->pid) + "\n";
  EXPECT_EQ(read_file(facts_of(dir.file("run-1"))), pid);
  // The run's supervisor was the spare prepared first; a second one is
  // prepared without any request.
  const auto lines_of = [](const std::string& text) {
    return std::count(text.begin(), text.end(), '\n');
  };
  for (int i = 0; i < 1000 && lines_of(read_file(prepared)) < 2; ++i) usleep(10'000);
  // In either order: the first spare may note itself after the second.
  const std::string lines = read_file(prepared);
  EXPECT_TRUE(lines.rfind(pid, 0) == 0 || lines.find("\n" + pid) != std::string::npos) << lines;
  EXPECT_EQ(lines_of(lines), 2) << lines;
}

TEST(SupervisorForker, ASpareThatDiedIsReplacedAndTheRequestServed) {
  testing::TempDir dir;
  const std::string prepared = dir.file("prepared");
  auto forker = SupervisorForker::start([prepared] {
    std::ofstream(prepared, std::ios::app) << getpid() << '\n';
    return SupervisorForker::Runner(describe_start);
  });
  ASSERT_TRUE(forker.ok());
  for (int i = 0; i < 1000 && read_file(prepared).empty(); ++i) usleep(10'000);
  const pid_t spare = std::stoi(read_file(prepared));
  const int spare_fd = int(syscall(SYS_pidfd_open, spare, 0));
  ASSERT_GE(spare_fd, 0);
  ::kill(spare, SIGKILL);
  ASSERT_TRUE(ended(spare_fd));
  ::close(spare_fd);
  auto forked =
      forker->fork_supervisor({"run-1", "daemon@test", "g1-token", dir.file("run-1"), 1000});
  ASSERT_TRUE(forked.ok()) << forked.error().message;
  EXPECT_NE(forked->pid, spare);
  ASSERT_TRUE(ended(forked->pidfd));
  ::close(forked->pidfd);
  EXPECT_EQ(read_file(facts_of(dir.file("run-1"))).rfind("run=run-1 by=daemon@test", 0), 0u);
}

}  // namespace
}  // namespace orrery
