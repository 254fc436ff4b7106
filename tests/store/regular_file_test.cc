#include "store/regular_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "support/temp_dir.h"

namespace orrery {
namespace {

using testing::TempDir;

std::string error_of(const std::string& path, std::int64_t limit = 1 << 20) {
  auto read = read_regular_file(path, limit);
  return read ? std::string() : read.error().message;
}

TEST(RegularFile, ReadsAWholeFileAndSaysWhenThereIsNone) {
  TempDir dir;
  std::ofstream(dir.file("p")) << "hello\nworld";
  auto read = read_regular_file(dir.file("p"), 100);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(**read, "hello\nworld");
  auto missing = read_regular_file(dir.file("none"), 100);
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

// None of these may block or be read: a FIFO without a writer, devices that
// never end, a directory.
TEST(RegularFile, RefusesWhatIsNotARegularFileWithoutBlocking) {
  TempDir dir;
  ASSERT_EQ(mkfifo(dir.file("fifo").c_str(), 0600), 0);
  ASSERT_EQ(symlink("/dev/zero", dir.file("zero").c_str()), 0);
  EXPECT_EQ(error_of(dir.file("fifo")), dir.file("fifo") + " is not a regular file");
  EXPECT_EQ(error_of(dir.file("zero")), dir.file("zero") + " is not a regular file");
  EXPECT_EQ(error_of("/dev/null"), "/dev/null is not a regular file");
  EXPECT_EQ(error_of(dir.path()), dir.path() + " is a directory");
}

TEST(RegularFile, RefusesAFileLargerThanTheLimit) {
  TempDir dir;
  std::ofstream(dir.file("big")) << std::string(200'000, 'x');
  EXPECT_EQ(error_of(dir.file("big"), 199'999),
            dir.file("big") + " is larger than 199999B, the most accepted");
  EXPECT_EQ(error_of(dir.file("big"), 200'000), "");
}

// Every limit a caller passes is the limit the message states: a file of
// exactly the limit is read, one byte more is refused naming that limit.
TEST(RegularFile, TheLimitInTheMessageIsTheLimitApplied) {
  TempDir dir;
  const std::vector<std::pair<std::int64_t, std::string>> limits = {
      {1, "1B"},
      {1023, "1023B"},
      {1024, "1KiB (1024 bytes)"},
      {256 * 1024, "256KiB (262144 bytes)"},
      {256 * 1024 + 1, "262145B"},
      {1 << 20, "1MiB (1048576 bytes)"}};
  for (const auto& [limit, shown] : limits) {
    std::ofstream(dir.file("at")) << std::string(size_t(limit), 'x');
    std::ofstream(dir.file("over")) << std::string(size_t(limit) + 1, 'x');
    EXPECT_EQ(error_of(dir.file("at"), limit), "") << limit;
    EXPECT_EQ(error_of(dir.file("over"), limit),
              dir.file("over") + " is larger than " + shown + ", the most accepted")
        << limit;
  }
}

}  // namespace
}  // namespace orrery
