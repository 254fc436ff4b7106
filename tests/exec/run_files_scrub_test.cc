#include "exec/run_files_scrub.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/fault_env.h"
#include "support/temp_dir.h"
#include "support/test_files.h"

namespace orrery {
namespace {

using testing::read_file;

constexpr const char* kSecret = "Plain-Secret-4711";

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

Scrubber secret_scrubber() { return Scrubber({kSecret}); }

TEST(ScrubFileInPlace, ASecretIsScrubbedAndTheRestKept) {
  testing::TempDir dir;
  write(dir.file("update.json"), std::string("{\"summary\": \"") + kSecret + "\"}");
  ASSERT_TRUE(scrub_file_in_place(system_env(), dir.file("update.json"), secret_scrubber()).ok());
  EXPECT_EQ(read_file(dir.file("update.json")), "{\"summary\": \"[SCRUBBED]\"}");
}

TEST(ScrubFileInPlace, AFileWithoutSecretsIsNotRewritten) {
  testing::TempDir dir;
  write(dir.file("plain"), "nothing to hide");
  testing::FaultEnv env;
  env.rename_error = EIO;  // a rewrite would fail, and remove the file
  ASSERT_TRUE(scrub_file_in_place(env, dir.file("plain"), secret_scrubber()).ok());
  EXPECT_EQ(read_file(dir.file("plain")), "nothing to hide");
  EXPECT_EQ(env.write_calls, 0);
}

TEST(ScrubFileInPlace, AFileThatIsNotThereIsNothingToDo) {
  testing::TempDir dir;
  EXPECT_TRUE(scrub_file_in_place(system_env(), dir.file("none"), secret_scrubber()).ok());
}

// Whatever keeps a file from being scrubbed, it is removed rather than kept
// with its secret: a full disk, a failing rename or fsync, a file too large.
TEST(ScrubFileInPlace, AFileThatCannotBeScrubbedIsRemoved) {
  struct Case {
    const char* name;
    void (*fault)(testing::FaultEnv&);
    std::int64_t padding;
  };
  const Case cases[] = {
      {"full disk", [](testing::FaultEnv& e) { e.fail_path = "out"; }, 0},
      {"failing rename", [](testing::FaultEnv& e) { e.rename_error = EIO; }, 0},
      {"failing fsync", [](testing::FaultEnv& e) { e.fsync_error = EIO; }, 0},
      {"larger than the limit", [](testing::FaultEnv&) {}, kMaxScrubbedFileBytes},
  };
  for (const Case& c : cases) {
    testing::TempDir dir;
    write(dir.file("out"), std::string(size_t(c.padding), 'x') + kSecret);
    testing::FaultEnv env;
    c.fault(env);
    EXPECT_TRUE(scrub_file_in_place(env, dir.file("out"), secret_scrubber()).ok()) << c.name;
    EXPECT_FALSE(std::filesystem::exists(dir.file("out"))) << c.name;
    EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << c.name << ": a temporary was left";
  }
}

TEST(ScrubFileInPlace, AFileThatCanBeNeitherScrubbedNorRemovedIsAnErrorNamingIt) {
  testing::TempDir dir;
  write(dir.file("plain"), kSecret);
  const std::string below_a_file = dir.file("plain") + "/out";  // ENOTDIR, even for root
  const Status scrubbed = scrub_file_in_place(system_env(), below_a_file, secret_scrubber());
  ASSERT_FALSE(scrubbed.ok());
  EXPECT_NE(scrubbed.error().message.find("cannot scrub " + below_a_file), std::string::npos)
      << scrubbed.error().message;
}

TEST(ScrubRunFiles, EveryFileButTheLogsIsScrubbedAndNoLinkIsFollowed) {
  testing::TempDir dir;
  testing::TempDir outside;
  const std::string secret = kSecret;
  for (const char* name : {"output.1", "goal-update.2.json", "goal.1.json", "steps.1.json",
                           "prompt.1.txt", "notes.txt", "outcome.json", "x.log"}) {
    write(dir.file(name), "value " + secret);
  }
  // Logs are scrubbed as they are written: they are not read again.
  for (const char* name : {"stdout.log", "stderr.log", "stdout.log.1", "supervisor.log"})
    write(dir.file(name), "log " + secret);
  write(outside.file("target"), secret);
  ASSERT_EQ(::symlink(outside.file("target").c_str(), dir.file("link").c_str()), 0);
  ASSERT_TRUE(scrub_run_files(system_env(), dir.path(), secret_scrubber()).ok());
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    const std::string name = entry.path().filename().string();
    if (entry.is_symlink()) continue;
    const bool log = RunDirectory::is_log(name);
    EXPECT_EQ(read_file(entry.path()).find(secret) != std::string::npos, log) << name;
  }
  EXPECT_EQ(read_file(outside.file("target")), secret) << "a link was followed";
}

TEST(ScrubRunFiles, ADirectoryThatIsNotThereIsNothingToDo) {
  testing::TempDir dir;
  EXPECT_TRUE(scrub_run_files(system_env(), dir.file("none"), secret_scrubber()).ok());
}

TEST(ScrubWorkflowRunFiles, TheRunsFilesAndEachStepsAreScrubbed) {
  testing::TempDir home;
  const HomeLayout layout(home.path());
  const std::string secret = kSecret;
  std::filesystem::create_directories(layout.step("run", "a").path());
  std::filesystem::create_directories(layout.step("run", "b").path());
  const std::string files[] = {RunDirectory(layout.workflow_run("run")).goal_update(1),
                               layout.item_file("run"), layout.step("run", "a").step_output(1),
                               layout.step("run", "b").goal_update(3)};
  for (const std::string& file : files) write(file, secret);
  write(layout.driver_log("run"), secret);
  ASSERT_TRUE(scrub_workflow_run_files(system_env(), layout, "run", secret_scrubber()).ok());
  for (const std::string& file : files) EXPECT_EQ(read_file(file), "[SCRUBBED]") << file;
  EXPECT_EQ(read_file(layout.driver_log("run")), secret) << "a log is not read again";
}

}  // namespace
}  // namespace orrery
