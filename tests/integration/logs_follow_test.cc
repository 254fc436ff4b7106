// `orrery logs --follow`: prints a run's log as it grows and returns once the
// run has finished, with everything it wrote.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "run_binary.h"
#include "support/temp_dir.h"

namespace orrery {
namespace {

// Runs orrery with --home `home`.
auto orrery_at(const std::string& home) {
  return [home](std::vector<std::string> args) {
    args.insert(args.begin(), {"--home", home});
    return run_orrery(args);
  };
}

TEST(LogsFollow, PrintsEverythingAndReturnsWhenTheRunEnds) {
  testing::TempDir dir;
  const auto orrery = orrery_at(dir.file("home"));
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

// A log that rotates while it is followed: --follow prints everything
// once, the marker where the rotation happened, and `logs` (with --json too)
// prints the same: the rotated part first, then the current file.
TEST(LogsFollow, ARotatedLogIsPrintedWholeInOrder) {
  testing::TempDir dir;
  const auto orrery = orrery_at(dir.file("home"));
  // 3 x 20700 bytes: one rotation at 32768 bytes (64 KiB / 2), in mid-line.
  const std::string chunk =
      "awk -v c=$c 'BEGIN{for(i=0;i<900;i++) printf \"chunk %d line %04d abcd\\n\", c, i}'";
  ASSERT_EQ(orrery({"add", "big", "--every", "1h", "--log-limit", "64KiB", "--shell",
                    "for c in 1 2 3; do " + chunk + "; sleep 0.2; done"})
                .exit_code,
            0);
  std::string expected;
  for (int c = 1; c <= 3; ++c) {
    for (int i = 0; i < 900; ++i) {
      char line[64];
      std::snprintf(line, sizeof line, "chunk %d line %04d abcd\n", c, i);
      expected += line;
    }
  }
  ASSERT_EQ(expected.size(), 62100u);
  const std::string marker =
      "=== stdout.log reached its limit: earlier output is in stdout.log.1; 0 bytes before that "
      "were dropped ===\n";
  const size_t cut = 32768;
  const std::string glue = expected[cut - 1] == '\n' ? "" : "\n";
  const std::string whole = expected.substr(0, cut) + glue + marker + expected.substr(cut);

  const RunResult started = orrery({"trigger", "big"});
  ASSERT_EQ(started.exit_code, 0) << started.err;
  const std::string run_id = started.out.substr(0, started.out.find('\n'));
  const RunResult followed = orrery({"logs", "--follow", run_id});
  EXPECT_EQ(followed.exit_code, 0) << followed.err;
  EXPECT_EQ(followed.out, whole);
  EXPECT_EQ(orrery({"logs", run_id}).out, whole);
  const auto json = nlohmann::json::parse(orrery({"--json", "logs", run_id}).out);
  EXPECT_EQ(json["text"], whole);
}

}  // namespace
}  // namespace orrery
