#include "exec/spawn.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/temp_dir.h"

namespace orrery {
namespace {

void make_file(const std::string& path, mode_t mode) {
  std::ofstream(path) << "#!/bin/sh\n";
  ::chmod(path.c_str(), mode);
}

std::string read_all(int fd) {
  std::string text;
  char buffer[4096];
  ssize_t got;
  while ((got = ::read(fd, buffer, sizeof buffer)) > 0) text.append(buffer, size_t(got));
  return text;
}

TEST(FindExecutable, SearchesTheGivenPathInOrder) {
  testing::TempDir dir;
  for (const char* sub : {"a", "b", "c"}) std::filesystem::create_directory(dir.file(sub));
  make_file(dir.file("b/tool"), 0755);
  make_file(dir.file("c/tool"), 0755);
  make_file(dir.file("a/tool"), 0644);                   // not executable: skipped
  std::filesystem::create_directory(dir.file("a/dir"));  // a directory: skipped
  const std::string a = dir.file("a"), b = dir.file("b"), c = dir.file("c");
  EXPECT_EQ(find_executable("tool", a + ":" + b + ":" + c, ""), dir.file("b/tool"));
  EXPECT_EQ(find_executable("tool", c + ":" + b, ""), dir.file("c/tool"));
  EXPECT_EQ(find_executable("tool", a, ""), std::nullopt);
  EXPECT_EQ(find_executable("dir", a, ""), std::nullopt);
  EXPECT_EQ(find_executable("missing", a + ":" + b, ""), std::nullopt);
  EXPECT_EQ(find_executable("tool", "", ""), std::nullopt);
  // Relative entries are taken from the target's working directory.
  EXPECT_EQ(find_executable("tool", "b", dir.path()), dir.path() + "/b/tool");
  // A name with a slash is not searched.
  EXPECT_EQ(find_executable("./tool", a, ""), "./tool");
  EXPECT_EQ(find_executable("/no/such/tool", a, ""), "/no/such/tool");
}

TEST(FindExecutable, ThePathIsTheTargetsOwn) {
  EXPECT_EQ(path_of({{"PATH", "/first"}, {"HOME", "/h"}, {"PATH", "/later"}}), "/later");
  EXPECT_EQ(path_of({{"HOME", "/h"}}), "/usr/local/bin:/usr/bin:/bin");
}

TEST(Spawn, AHeldChildThatIsDiscardedNeverRuns) {
  testing::TempDir dir;
  const std::string marker = dir.file("ran");
  auto spawned = spawn_in_group({"/bin/sh", "-c", "touch '" + marker + "'"}, {}, "");
  ASSERT_TRUE(spawned.ok()) << spawned.error().message;
  discard(*spawned);
  EXPECT_FALSE(std::filesystem::exists(marker));
}

// A supervisor that dies before release() closes the go pipe: the held
// child must see end of file, exit and run nothing.
TEST(Spawn, AHeldChildWhoseReleaseEndClosesExitsWithoutRunning) {
  for (const bool close_outputs : {false, true}) {
    testing::TempDir dir;
    const std::string marker = dir.file("ran");
    auto spawned = spawn_in_group({"/bin/sh", "-c", "touch '" + marker + "'"}, {}, "");
    ASSERT_TRUE(spawned.ok()) << spawned.error().message;
    ::close(spawned->release_fd);
    if (close_outputs) {
      ::close(spawned->stdout_fd);
      ::close(spawned->stderr_fd);
    }
    int status = 0;
    pid_t reaped = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (reaped == 0 && std::chrono::steady_clock::now() < deadline) {
      reaped = waitpid(spawned->pid, &status, WNOHANG);
      if (reaped == 0) poll(nullptr, 0, 5);  // polling for the exit, with a deadline
    }
    if (reaped == 0) {
      kill(-spawned->pid, SIGKILL);
      waitpid(spawned->pid, &status, 0);
    }
    EXPECT_EQ(reaped, spawned->pid) << "the held child did not exit";
    EXPECT_FALSE(std::filesystem::exists(marker));
    ::close(spawned->report_fd);
    if (!close_outputs) {
      ::close(spawned->stdout_fd);
      ::close(spawned->stderr_fd);
    }
  }
}

TEST(Spawn, TheTargetStartsWithNoBlockedOrIgnoredSignal) {
  sigset_t blocked, previous;
  sigemptyset(&blocked);
  for (int signal : {SIGUSR1, SIGTERM, SIGCHLD}) sigaddset(&blocked, signal);
  ASSERT_EQ(sigprocmask(SIG_BLOCK, &blocked, &previous), 0);
  auto* old_int = std::signal(SIGINT, SIG_IGN);
  auto* old_pipe = std::signal(SIGPIPE, SIG_IGN);
  auto spawned =
      spawn_in_group({"/bin/sh", "-c", "grep -E '^Sig(Blk|Ign)' /proc/self/status"}, {}, "");
  sigprocmask(SIG_SETMASK, &previous, nullptr);
  std::signal(SIGINT, old_int);
  std::signal(SIGPIPE, old_pipe);
  ASSERT_TRUE(spawned.ok());
  ASSERT_TRUE(release(*spawned, "", "/bin/sh").ok());
  ::close(spawned->stderr_fd);
  const std::string status = read_all(spawned->stdout_fd);
  ::close(spawned->stdout_fd);
  waitpid(spawned->pid, nullptr, 0);
  // grep's own process: sh execs nothing else that changes them.
  EXPECT_NE(status.find("SigBlk:\t0000000000000000"), std::string::npos) << status;
  EXPECT_NE(status.find("SigIgn:\t0000000000000000"), std::string::npos) << status;
}

volatile std::sig_atomic_t handled_in_this_memory = 0;
void note_handled(int) { handled_in_this_memory = 1; }

// The held child shares the caller's memory until it execs: a handler of the
// caller's must never run in it (it would run on the child's stack, in our
// memory). Signalled while held, it meets the default disposition.
TEST(Spawn, NoHandlerOfTheCallersRunsInTheHeldChild) {
  struct sigaction handler {
  }, previous{};
  handler.sa_handler = note_handled;
  sigemptyset(&handler.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR1, &handler, &previous), 0);
  handled_in_this_memory = 0;
  auto spawned = spawn_in_group({"/bin/true"}, {}, "");
  ASSERT_TRUE(spawned.ok()) << spawned.error().message;
  ASSERT_EQ(kill(spawned->pid, SIGUSR1), 0);
  int status = 0;
  ASSERT_EQ(waitpid(spawned->pid, &status, 0), spawned->pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR1) << status;
  EXPECT_EQ(handled_in_this_memory, 0);
  spawned->pid = -1;  // reaped
  discard(*spawned);
  sigaction(SIGUSR1, &previous, nullptr);
}

size_t entries_of(const std::string& directory) {
  size_t count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(directory)) ++count;
  return count;
}

// Each start uses a holder thread and five pipes: once released (or
// discarded) and reaped, none of them is left, however many were started.
TEST(Spawn, StartedChildrenLeaveNoDescriptorOrThreadBehind) {
  const size_t descriptors = entries_of("/proc/self/fd");
  const size_t threads = entries_of("/proc/self/task");
  for (int i = 0; i < 60; ++i) {
    auto spawned = spawn_in_group({"/bin/sh", "-c", "echo " + std::to_string(i)}, {}, "");
    ASSERT_TRUE(spawned.ok()) << spawned.error().message;
    if (i % 3 == 2) {
      discard(*spawned);
      continue;
    }
    ASSERT_TRUE(release(*spawned, "", "/bin/sh").ok());
    ::close(spawned->stderr_fd);
    EXPECT_EQ(read_all(spawned->stdout_fd), std::to_string(i) + "\n");
    ::close(spawned->stdout_fd);
    waitpid(spawned->pid, nullptr, 0);
  }
  EXPECT_EQ(entries_of("/proc/self/fd"), descriptors);
  // A joined thread leaves /proc/self/task when the kernel releases it,
  // a moment after pthread_join returns; nothing signals that moment.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (entries_of("/proc/self/task") > threads && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_EQ(entries_of("/proc/self/task"), threads);
}

// A script whose #! interpreter is missing exists: the message says what is
// missing instead of calling the script itself not found.
TEST(Spawn, AMissingInterpreterIsNamedNotTheScript) {
  testing::TempDir dir;
  const std::string script = dir.file("script");
  make_file(script, 0755);
  std::ofstream(script) << "#!/nonexistent/interpreter\necho never\n";
  auto spawned = spawn_in_group({script}, {}, "");
  ASSERT_TRUE(spawned.ok()) << spawned.error().message;
  const Status released = release(*spawned, "", script);
  ASSERT_FALSE(released.ok());
  EXPECT_EQ(released.error().message,
            "cannot execute " + script + ": the interpreter its #! line names was not found");
}

TEST(Spawn, TheExecutableIsFoundOnTheTargetsPath) {
  testing::TempDir dir;
  make_file(dir.file("only-here"), 0755);
  std::ofstream(dir.file("only-here")) << "#!/bin/sh\necho found me\n";
  auto spawned = spawn_in_group({"only-here"}, {{"PATH", dir.path()}}, "");
  ASSERT_TRUE(spawned.ok()) << spawned.error().message;
  ASSERT_TRUE(release(*spawned, "", "only-here").ok());
  ::close(spawned->stderr_fd);
  EXPECT_EQ(read_all(spawned->stdout_fd), "found me\n");
  ::close(spawned->stdout_fd);
  waitpid(spawned->pid, nullptr, 0);
  // Not on the supervisor's own PATH.
  auto missing = spawn_in_group({"only-here"}, {{"PATH", "/usr/bin:/bin"}}, "");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "executable not found in PATH: only-here");
}

// The held child reports the reason exec failed with (its errno, read in
// the child that shares our memory): one argument past the kernel's 128 KiB
// per string is E2BIG, a directory is EACCES.
TEST(Spawn, AnExecTheKernelRefusesIsReportedWithItsReason) {
  testing::TempDir dir;
  struct Case {
    std::vector<std::string> argv;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"/bin/true", std::string(200'000, 'x')},
       "cannot execute /bin/true: Argument list too long"},
      {{dir.path()}, "cannot execute " + dir.path() + ": Permission denied"},
  };
  for (const Case& c : cases) {
    auto spawned = spawn_in_group(c.argv, {}, "");
    ASSERT_TRUE(spawned.ok()) << spawned.error().message;
    const Status released = release(*spawned, "", c.argv[0]);
    ASSERT_FALSE(released.ok()) << c.message;
    EXPECT_EQ(released.error().message, c.message);
  }
}

TEST(Spawn, AnUnusableWorkingDirectoryIsReportedAtRelease) {
  auto spawned = spawn_in_group({"/bin/true"}, {}, "/no/such/dir");
  ASSERT_TRUE(spawned.ok());
  const Status released = release(*spawned, "/no/such/dir", "/bin/true");
  ASSERT_FALSE(released.ok());
  EXPECT_EQ(released.error().message,
            "working directory /no/such/dir is not usable: No such file or directory");
}

}  // namespace
}  // namespace orrery
