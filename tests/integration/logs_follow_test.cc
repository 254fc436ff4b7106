// `orrery logs --follow`: prints a run's log as it grows and returns once the
// run has finished, with everything it wrote.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "run_binary.h"
#include "support/temp_dir.h"

namespace orrery {
namespace {

TEST(LogsFollow, PrintsEverythingAndReturnsWhenTheRunEnds) {
  testing::TempDir dir;
  const std::vector<std::string> home{"--home", dir.file("home")};
  auto orrery = [&](std::vector<std::string> args) {
    args.insert(args.begin(), home.begin(), home.end());
    return run_orrery(args);
  };
  ASSERT_EQ(orrery({"add", "slow", "--every", "1h", "--shell",
                    "for i in 1 2 3; do echo line $i; sleep 0.2; done; echo done >&2"})
                .exit_code,
            0);
  const RunResult started = orrery({"trigger", "slow"});
  ASSERT_EQ(started.exit_code, 0) << started.err;
  const std::string run_id = started.out.substr(0, started.out.find('\n'));

  const RunResult followed = orrery({"logs", "--follow", run_id});
  EXPECT_EQ(followed.exit_code, 0) << followed.err;
  EXPECT_EQ(followed.out, "line 1\nline 2\nline 3\n");
  // It returned because the run had finished.
  const auto run = nlohmann::json::parse(orrery({"--json", "run", "show", run_id}).out);
  EXPECT_EQ(run["status"], "succeeded");
  EXPECT_EQ(orrery({"logs", "--stderr", "slow"}).out, "done\n");
}

}  // namespace
}  // namespace orrery
