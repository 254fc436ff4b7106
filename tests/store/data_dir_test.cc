#include "store/data_dir.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "support/temp_dir.h"

namespace orrery {
namespace {

using testing::TempDir;

std::string contents_of(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

TEST(CreatePrivateFile, CreatesAnAbsentFile0600AndItsDanglingLinksTarget) {
  TempDir dir;
  const mode_t previous = umask(0);
  ASSERT_TRUE(create_private_file(dir.file("new.db")).ok());
  umask(previous);
  struct stat info {};
  ASSERT_EQ(stat(dir.file("new.db").c_str(), &info), 0);
  EXPECT_TRUE(S_ISREG(info.st_mode));
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_EQ(info.st_size, 0);

  ASSERT_EQ(symlink(dir.file("target.db").c_str(), dir.file("link.db").c_str()), 0);
  ASSERT_TRUE(create_private_file(dir.file("link.db")).ok());
  ASSERT_EQ(lstat(dir.file("target.db").c_str(), &info), 0);
  EXPECT_TRUE(S_ISREG(info.st_mode));
}

// An existing file is only looked at (docs/storage.md, "One file, several
// connections"): its bytes, inode and times stay as they were.
TEST(CreatePrivateFile, LeavesAnExistingFileAsItIs) {
  TempDir dir;
  const std::string path = dir.file("orrery.db");
  std::ofstream(path) << "kept";
  ASSERT_EQ(chmod(path.c_str(), 0640), 0);
  struct stat before {};
  ASSERT_EQ(stat(path.c_str(), &before), 0);
  ASSERT_TRUE(create_private_file(path).ok());
  struct stat after {};
  ASSERT_EQ(stat(path.c_str(), &after), 0);
  EXPECT_EQ(contents_of(path), "kept");
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(after.st_mode, before.st_mode);
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  EXPECT_EQ(after.st_atim.tv_sec, before.st_atim.tv_sec);
}

// A Unix socket file at `path`.
void bind_socket(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  path.copy(address.sun_path, sizeof address.sun_path - 1);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0) << path;
  ::close(fd);  // the socket file stays
}

// Each is refused, naming the path and what it is, without blocking (a FIFO without a
// writer) and without creating anything.
TEST(CreatePrivateFile, RefusesWhatIsNotARegularFileNamingIt) {
  struct Case {
    const char* name;
    std::function<void(const TempDir&)> make;
    const char* message;
  };
  const Case cases[] = {
      {"fifo", [](const TempDir& d) { mkfifo(d.file("fifo").c_str(), 0600); }, "is a FIFO;"},
      {"dir", [](const TempDir& d) { mkdir(d.file("dir").c_str(), 0700); },
       "is a directory; a database must be a regular file (a file in that directory, say "},
      {"null", [](const TempDir& d) { symlink("/dev/null", d.file("null").c_str()); },
       "is a character device;"},
      {"socket", [](const TempDir& d) { bind_socket(d.file("socket")); }, "is a socket;"},
      {"missing/orrery.db", [](const TempDir&) {}, "No such file or directory"},
      {"loop", [](const TempDir& d) { symlink(d.file("loop").c_str(), d.file("loop").c_str()); },
       "Too many levels of symbolic links"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    c.make(dir);
    const std::string path = dir.file(c.name);
    const Status made = create_private_file(path);
    ASSERT_FALSE(made.ok());
    EXPECT_NE(made.error().message.find(path), std::string::npos) << made.error().message;
    EXPECT_NE(made.error().message.find(c.message), std::string::npos) << made.error().message;
    EXPECT_EQ(made.error().code, ErrorCode::kUsage);
  }
}

}  // namespace
}  // namespace orrery
