#include "store/home_layout.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/ids.h"

namespace orrery {
namespace {

// Every path of a home, in one text, so that each home is checked whole.
std::string every_path(const HomeLayout& layout) {
  const RunDirectory run = layout.run("r1");
  const RunDirectory step = layout.step("w1", "build");
  std::string text;
  for (const std::string& path : {layout.home(),
                                  layout.database(),
                                  layout.secrets_directory(),
                                  layout.loop_secrets("l1"),
                                  run.path(),
                                  run.supervisor_log(),
                                  run.stdout_log(),
                                  run.stderr_log(),
                                  run.log("stdout"),
                                  RunDirectory::rotated_log(run.stdout_log()),
                                  run.kept_outcome(),
                                  layout.workflow_run("w1"),
                                  layout.manifest("w1"),
                                  layout.driver_log("w1"),
                                  step.path(),
                                  step.supervisor_log(),
                                  step.stdout_log(),
                                  step.stderr_log(),
                                  step.kept_outcome(),
                                  step.step_values(2),
                                  step.step_output(2),
                                  layout.daemon_socket()}) {
    text += path + "\n";
  }
  return text;
}

constexpr const char* kPathsOfHome =
    "/home/u/.orrery\n"
    "/home/u/.orrery/orrery.db\n"
    "/home/u/.orrery/secrets\n"
    "/home/u/.orrery/secrets/l1.env\n"
    "/home/u/.orrery/runs/r1\n"
    "/home/u/.orrery/runs/r1/supervisor.log\n"
    "/home/u/.orrery/runs/r1/stdout.log\n"
    "/home/u/.orrery/runs/r1/stderr.log\n"
    "/home/u/.orrery/runs/r1/stdout.log\n"
    "/home/u/.orrery/runs/r1/stdout.log.1\n"
    "/home/u/.orrery/runs/r1/outcome.json\n"
    "/home/u/.orrery/workflow-runs/w1\n"
    "/home/u/.orrery/workflow-runs/w1/manifest.json\n"
    "/home/u/.orrery/workflow-runs/w1/driver.log\n"
    "/home/u/.orrery/workflow-runs/w1/steps/build\n"
    "/home/u/.orrery/workflow-runs/w1/steps/build/supervisor.log\n"
    "/home/u/.orrery/workflow-runs/w1/steps/build/stdout.log\n"
    "/home/u/.orrery/workflow-runs/w1/steps/build/stderr.log\n"
    "/home/u/.orrery/workflow-runs/w1/steps/build/outcome.json\n"
    "/home/u/.orrery/workflow-runs/w1/steps/build/steps.2.json\n"
    "/home/u/.orrery/workflow-runs/w1/steps/build/output.2\n"
    "/home/u/.orrery/daemon.sock\n";

TEST(HomeLayout, NamesEveryPathBelowTheHome) {
  EXPECT_EQ(every_path(HomeLayout("/home/u/.orrery")), kPathsOfHome);
}

TEST(HomeLayout, TrailingSlashesOfTheHomeAreDropped) {
  EXPECT_EQ(every_path(HomeLayout("/home/u/.orrery/")), kPathsOfHome);
  EXPECT_EQ(every_path(HomeLayout("/home/u/.orrery//")), kPathsOfHome);
}

TEST(HomeLayout, AHomeWithSpacesIsUsedAsGiven) {
  const HomeLayout layout("/tmp/my home/data dir");
  EXPECT_EQ(layout.home(), "/tmp/my home/data dir");
  EXPECT_EQ(layout.database(), "/tmp/my home/data dir/orrery.db");
  EXPECT_EQ(layout.run("r1").stderr_log(), "/tmp/my home/data dir/runs/r1/stderr.log");
  EXPECT_EQ(layout.step("w 1", "a step").path(),
            "/tmp/my home/data dir/workflow-runs/w 1/steps/a step");
  EXPECT_EQ(layout.loop_secrets("l1"), "/tmp/my home/data dir/secrets/l1.env");
}

TEST(HomeLayout, TheRootAsHomeGivesSingleSlashes) {
  const HomeLayout layout("/");
  EXPECT_EQ(layout.home(), "/");
  EXPECT_EQ(layout.database(), "/orrery.db");
  EXPECT_EQ(layout.run("r1").path(), "/runs/r1");
}

TEST(HomeLayout, IdsAreUsedAsGiven) {
  const HomeLayout layout("/h");
  EXPECT_EQ(layout.run("01JABCDEF-x").path(), "/h/runs/01JABCDEF-x");
  EXPECT_EQ(layout.step("wr-9", "deploy.prod").stdout_log(),
            "/h/workflow-runs/wr-9/steps/deploy.prod/stdout.log");
  EXPECT_EQ(layout.manifest("wr-9"), "/h/workflow-runs/wr-9/manifest.json");
}

TEST(HomeLayout, RelativePathsNameTheSameFilesWithoutTheHome) {
  EXPECT_EQ(HomeLayout::relative_run("r1"), "runs/r1");
  EXPECT_EQ(HomeLayout::relative_run_log("r1", "stderr"), "runs/r1/stderr.log");
  EXPECT_EQ(HomeLayout("/h").run("r1").stderr_log(),
            "/h/" + HomeLayout::relative_run_log("r1", "stderr"));
}

// Runs published in one transaction are made in one millisecond and share
// the first 12 characters of their ids: every directory and file named for
// a run, a step of it, its worktree or a queue entry is still its own.
TEST(HomeLayout, RowsMadeInOneMillisecondNameDistinctPathsForEveryStep) {
  const HomeLayout layout("/h");
  std::mt19937 random(5);
  std::set<std::string> paths;
  size_t named = 0;
  const std::vector<std::string> steps{"fix", "review", "a.b", "s_2"};
  for (int i = 0; i < 100; ++i) {
    std::array<std::uint8_t, 10> bytes{};
    for (auto& byte : bytes) byte = static_cast<std::uint8_t>(random());
    const std::string id = make_id(1'780'000'000'000, bytes);
    std::vector<std::string> of_id{layout.run(id).path(),  layout.workflow_run(id),
                                   layout.manifest(id),    layout.item_file(id),
                                   layout.driver_log(id),  layout.queue_scratch(id),
                                   layout.loop_secrets(id)};
    for (const std::string& step : steps) {
      of_id.push_back(layout.step(id, step).path());
      of_id.push_back(layout.worktree(id, step));
    }
    for (const std::string& path : of_id) paths.insert(path);
    named += of_id.size();
  }
  EXPECT_EQ(paths.size(), named);
}

TEST(RunDirectory, NamesTheFilesOfTheDirectoryItWasGiven) {
  const RunDirectory dir("/h/runs/r1");
  EXPECT_EQ(dir.path(), "/h/runs/r1");
  EXPECT_EQ(dir.kept_outcome(), "/h/runs/r1/outcome.json");
  EXPECT_EQ(RunDirectory::rotated_log("stderr.log"), "stderr.log.1");
}

}  // namespace
}  // namespace orrery
