#include "core/path_glob.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace orrery {
namespace {

struct Case {
  const char* glob;
  const char* path;
  bool matches;
};

TEST(PathGlobTest, StarsQuestionMarksAndDoubleStars) {
  const Case cases[] = {
      {"src/*.cc", "src/a.cc", true},
      {"src/*.cc", "src/sub/a.cc", false},
      {"src/**", "src/sub/deep/a.cc", true},
      {"src/**", "src", true},
      {"src/**/*.h", "src/a.h", true},
      {"src/**/*.h", "src/x/y/a.h", true},
      {"src/**/*.h", "src/x/y/a.cc", false},
      {"**/test_*.py", "test_a.py", true},
      {"**/test_*.py", "a/b/test_a.py", true},
      {"?.md", "a.md", true},
      {"?.md", "ab.md", false},
      {"?", "/", false},
      {"docs/", "docs/a/b.md", true},
      {"docs/", "docsx/a.md", false},
      {"README", "README", true},
      {"README", "README.md", false},
      {"*", "a/b", false},
      {"**", "a/b", true},
      {"a*b*c", "aXbYc", true},
      {"a*b*c", "aXbY", false},
      {"*.tar.gz", "x.tar.gz", true},
      {"src/*/main.go", "src/cmd/main.go", true},
      {"src/*/main.go", "src/main.go", false},
      {"", "a", false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(path_matches_glob(c.glob, c.path), c.matches) << c.glob << " vs " << c.path;
  }
}

TEST(PathGlobTest, ManyStarsStayCheap) {
  // A pathological glob against a long path ends (the two-pointer walk).
  std::string glob;
  for (int i = 0; i < 200; ++i) glob += "*a";
  glob += "b";
  const std::string path(4000, 'a');
  EXPECT_FALSE(path_matches_glob(glob, path));
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += "**/";
  deep += "z";
  std::string long_path;
  for (int i = 0; i < 1000; ++i) long_path += "a/";
  long_path += "y";
  EXPECT_FALSE(path_matches_glob(deep, long_path));
}

TEST(PathGlobTest, FilesOutsideTheAllowedGlobsAreListedInOrder) {
  const std::vector<std::string> allowed = {"src/**", "docs/*.md"};
  const std::vector<std::string> changed = {"src/a.cc", "Makefile", "docs/a.md", "docs/x/b.md",
                                            ".github/ci.yml"};
  EXPECT_EQ(files_outside(allowed, changed),
            (std::vector<std::string>{"Makefile", "docs/x/b.md", ".github/ci.yml"}));
  EXPECT_EQ(files_outside({}, {"a"}), std::vector<std::string>{"a"});
}

TEST(PathGlobTest, GlobsAreRelativeInsideTheRepositoryAndPrintable) {
  EXPECT_TRUE(check_glob("src/**", "allowed_files[0]").ok());
  for (const std::string& bad :
       {std::string(), std::string("/etc/passwd"), std::string("../x"), std::string("a/../../b"),
        std::string("a\nb"), std::string("\xff"), std::string(kMaxGlobBytes + 1, 'a')}) {
    auto refused = check_glob(bad, "allowed_files[0]");
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.error().message.rfind("allowed_files[0]", 0), 0u);
  }
}

}  // namespace
}  // namespace orrery
