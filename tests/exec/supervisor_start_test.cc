#include "exec/supervisor_start.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "support/temp_dir.h"
#include "support/test_files.h"

namespace orrery {
namespace {

using testing::read_file;

// The claim token and the database location (a PostgreSQL URL may hold a
// password) stay off the command line, which every user can read.
TEST(SupervisorStart, TheTokenAndTheDatabaseComeOutsideTheArguments) {
  testing::TempDir dir;
  const std::string fake = dir.file("fake-orrery");
  // Stands in for `orrery supervise RUN --token-fd N`: records what it got.
  std::ofstream(fake) << "#!/bin/sh\necho \"$@\" > '" << dir.file("args") << "'\ncat <&$6 > '"
                      << dir.file("token") << "'\necho \"$ORRERY_DB\" > '" << dir.file("db")
                      << "'\nls /proc/self/fd > '" << dir.file("fds") << "'\n";
  ::chmod(fake.c_str(), 0755);
  for (const bool detach : {false, true}) {
    SupervisorLaunch launch{fake,
                            {"--home", dir.path()},
                            "run-1",
                            "g1-secret-token",
                            dir.file("supervisor.log"),
                            detach,
                            "postgresql://orrery:hunter2@db.example/orrery"};
    auto started = start_supervisor(launch);
    ASSERT_TRUE(started.ok()) << started.error().message;
    if (!detach) {
      EXPECT_EQ(wait_for_supervisor(*started), 0);
    } else {  // not our child: wait for its last file by polling, bounded
      for (int i = 0; i < 500 && read_file(dir.file("fds")).empty(); ++i) usleep(10'000);
    }
    const std::string args = read_file(dir.file("args"));
    EXPECT_EQ(args.rfind("--home " + dir.path() + " supervise run-1 --token-fd ", 0), 0u) << args;
    EXPECT_EQ(args.find("secret"), std::string::npos);
    EXPECT_EQ(args.find("hunter2"), std::string::npos);
    EXPECT_EQ(read_file(dir.file("db")), "postgresql://orrery:hunter2@db.example/orrery\n");
    EXPECT_EQ(read_file(dir.file("token")), "g1-secret-token");
    std::remove(dir.file("fds").c_str());
  }
}

TEST(SupervisorStart, AnExecutableThatCannotRunIsAnErrorForBothModes) {
  testing::TempDir dir;
  std::ofstream(dir.file("not-executable")) << "#!/bin/sh\n";
  for (const std::string& executable : {dir.file("missing"), dir.file("not-executable")}) {
    for (const bool detach : {false, true}) {
      auto started = start_supervisor(
          {executable, {}, "run-1", "g1-token", dir.file("supervisor.log"), detach, ""});
      ASSERT_FALSE(started.ok()) << executable;
      EXPECT_EQ(started.error().message.rfind(
                    "cannot start the supervisor: cannot run " + executable + ": ", 0),
                0u)
          << started.error().message;
    }
  }
}

TEST(SupervisorStart, AnUnwritableLogIsAnError) {
  auto started = start_supervisor(
      {"/bin/true", {}, "run-1", "g1-token", "/no/such/dir/supervisor.log", true, ""});
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.error().message,
            "cannot start the supervisor: cannot open /no/such/dir/supervisor.log: No such file "
            "or directory");
}

}  // namespace
}  // namespace orrery
