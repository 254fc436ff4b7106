#include "exec/env.h"

#include <fcntl.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/fault_env.h"
#include "support/temp_dir.h"
#include "support/test_files.h"

namespace orrery {
namespace {

using testing::read_file;

TEST(WriteFileAtomically, ShortWritesStillWriteEverything) {
  for (const size_t chunk : {1u, 2u, 7u}) {
    testing::TempDir dir;
    testing::FaultEnv env;
    env.max_write = chunk;
    ASSERT_TRUE(write_file_atomically(env, dir.file("f"), "the whole text", 0600).ok());
    EXPECT_EQ(read_file(dir.file("f")), "the whole text") << chunk;
    EXPECT_FALSE(std::filesystem::exists(dir.file("f.tmp")));
  }
}

TEST(WriteFileAtomically, AFailureLeavesTheOldFileAndNoTemporary) {
  struct Fault {
    const char* name;
    void (*apply)(testing::FaultEnv&);
  };
  const Fault faults[] = {
      {"full disk", [](testing::FaultEnv& e) { e.fail_path = "f.tmp"; }},
      {"I/O error",
       [](testing::FaultEnv& e) {
         e.fail_path = "f.tmp";
         e.bytes_before_failure = 3;
         e.write_error = EIO;
       }},
      {"fsync", [](testing::FaultEnv& e) { e.fsync_error = EIO; }},
      {"rename", [](testing::FaultEnv& e) { e.rename_error = EXDEV; }},
  };
  for (const Fault& fault : faults) {
    testing::TempDir dir;
    { std::ofstream(dir.file("f")) << "old"; }
    testing::FaultEnv env;
    fault.apply(env);
    const Status written = write_file_atomically(env, dir.file("f"), "new text", 0600);
    EXPECT_FALSE(written.ok()) << fault.name;
    EXPECT_EQ(read_file(dir.file("f")), "old") << fault.name;
    EXPECT_FALSE(std::filesystem::exists(dir.file("f.tmp"))) << fault.name;
  }
}

TEST(WriteAll, ReportsTheErrorThatStoppedIt) {
  testing::TempDir dir;
  testing::FaultEnv env;
  env.fail_path = "log";
  env.bytes_before_failure = 4;
  const int fd = env.open(dir.file("log"), O_WRONLY | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  const Status written = write_all(env, fd, "0123456789", "the log");
  env.close(fd);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().message, std::string("cannot write to the log: ") + strerror(ENOSPC));
  EXPECT_EQ(read_file(dir.file("log")), "0123");
}

}  // namespace
}  // namespace orrery
