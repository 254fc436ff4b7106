#include "store/secrets.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.h"

namespace orrery {
namespace {

TEST(Secrets, AreWrittenWholeReadBackAndReplaced) {
  testing::TempDir home;
  const std::vector<std::vector<EnvVar>> versions{
      {{"TOKEN", "first"}},
      {{"TOKEN", "second"}, {"OTHER", std::string(100'000, 'x')}},  // larger than a pipe buffer
      {{"ONLY", "a=b=c"}}};
  for (const auto& secrets : versions) {
    ASSERT_TRUE(write_loop_secrets(home.path(), "loop1", secrets).ok());
    auto read = read_loop_secrets(home.path(), "loop1");
    ASSERT_TRUE(read.ok());
    EXPECT_EQ(*read, secrets);
    EXPECT_FALSE(std::filesystem::exists(home.file("secrets/loop1.env.tmp")));
    struct stat info {};
    ASSERT_EQ(::stat(home.file("secrets/loop1.env").c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600u);
  }
}

TEST(Secrets, AFailureToWriteIsAnErrorAndKeepsTheOldFile) {
  testing::TempDir home;
  ASSERT_TRUE(write_loop_secrets(home.path(), "loop1", {{"K", "old"}}).ok());
  // The temporary file's name is taken by a directory: it cannot be created.
  std::filesystem::create_directory(home.file("secrets/loop1.env.tmp"));
  const Status written = write_loop_secrets(home.path(), "loop1", {{"K", "new"}});
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find("loop1.env.tmp"), std::string::npos)
      << written.error().message;
  auto read = read_loop_secrets(home.path(), "loop1");
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, (std::vector<EnvVar>{{"K", "old"}}));
}

}  // namespace
}  // namespace orrery
