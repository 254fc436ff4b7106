#include "core/user_path.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace orrery {
namespace {

PathBase full_base() {
  PathBase base;
  base.dir = "/work/here";
  base.home = "/home/me";
  base.home_of = [](const std::string& user) -> std::optional<std::string> {
    if (user == "alice") return std::string("/home/alice");
    return std::nullopt;
  };
  return base;
}

TEST(UserPathTest, ResolvesAsAShellWouldReadIt) {
  const PathBase base = full_base();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {".", "/work/here"},
      {"sub/dir", "/work/here/sub/dir"},
      {"sub/dir/", "/work/here/sub/dir"},
      {"../up", "/work/up"},
      {"./~", "/work/here/~"},
      {"a/~/b", "/work/here/a/~/b"},
      {"~", "/home/me"},
      {"~/", "/home/me"},
      {"~/src/repo", "/home/me/src/repo"},
      {"~//src", "/home/me/src"},
      {"~/../other", "/home/other"},
      {"~alice", "/home/alice"},
      {"~alice/x", "/home/alice/x"},
      {"/abs/./p/../q/", "/abs/q"},
      {"/", "/"},
      {"//", "/"},
  };
  for (const auto& [given, expected] : cases) {
    auto resolved = resolve_user_path(given, base);
    ASSERT_TRUE(resolved) << given << ": " << resolved.error().message;
    EXPECT_EQ(*resolved, expected) << given;
  }
}

// Every form of path against every base that lacks something: the result
// is absolute and normal, or an Error that names the path — never a path
// that kept a `~` at its start or stayed relative.
TEST(UserPathTest, EveryFormIsAbsoluteOrRefusedNamingThePath) {
  const std::vector<std::string> heads = {"",         "~",  "~/",  "~alice", "~alice/",
                                          "~nobody/", "./", "../", "/",      "~~/"};
  const std::vector<std::string> tails = {"", "x", "x/", "x/../y", "./~", "a//b", "~b", ".."};
  std::vector<PathBase> bases(5, full_base());
  bases[1].dir.clear();
  bases[2].home.clear();
  bases[3].home_of = nullptr;
  bases[4].dir = "relative/dir";
  bases[4].home = "relative-home";
  for (const std::string& head : heads) {
    for (const std::string& tail : tails) {
      const std::string given = head + tail;
      for (std::size_t b = 0; b < bases.size(); ++b) {
        auto resolved = resolve_user_path(given, bases[b]);
        const std::string label = "'" + given + "' against base " + std::to_string(b);
        if (!resolved) {
          EXPECT_EQ(resolved.error().code, ErrorCode::kUsage) << label;
          if (!given.empty()) {
            EXPECT_NE(resolved.error().message.find("'" + given + "'"), std::string::npos)
                << label << ": " << resolved.error().message;
          }
          continue;
        }
        const std::string& path = *resolved;
        EXPECT_EQ(path.front(), '/') << label << " gave " << path;
        EXPECT_TRUE(path == "/" || path.back() != '/') << label << " gave " << path;
        EXPECT_EQ(path.find("/./"), std::string::npos) << label << " gave " << path;
        EXPECT_EQ(path.find("//"), std::string::npos) << label << " gave " << path;
        const bool climbs = given.find("..") != std::string::npos;
        if ((given.rfind("~/", 0) == 0 || given == "~") && !climbs) {
          EXPECT_EQ(path.rfind("/home/me", 0), 0u) << label << " gave " << path;
        }
      }
    }
  }
}

TEST(UserPathTest, WhatIsMissingIsSaid) {
  PathBase none;
  EXPECT_NE(resolve_user_path("rel", none).error().message.find("relative"), std::string::npos);
  EXPECT_NE(resolve_user_path("~/x", none).error().message.find("HOME"), std::string::npos);
  EXPECT_NE(resolve_user_path("~bob/x", full_base()).error().message.find("no such user"),
            std::string::npos);
  EXPECT_FALSE(resolve_user_path("", full_base()));
  EXPECT_EQ(*resolve_user_path("/abs", none), "/abs");
}

// What orrery stores is text: a path that reads as bytes that are not UTF-8
// (its base directory's or its home's, or its own) or holds a NUL is
// refused, naming the path as given.
TEST(UserPathTest, APathThatIsNotTextIsRefused) {
  PathBase bad = full_base();
  bad.dir = "/work/b\xff";
  bad.home = "/home/\xc3";
  bad.home_of = [](const std::string&) -> std::optional<std::string> {
    return std::string("/home/\xe2\x82");
  };
  const std::vector<std::string> givens = {
      ".", "x", "~", "~/x", "~alice/x", std::string("/a\xff") + "b", std::string("/a\0b", 4)};
  for (const std::string& given : givens) {
    auto resolved = resolve_user_path(given, bad);
    ASSERT_FALSE(resolved) << given << " gave " << *resolved;
    EXPECT_NE(resolved.error().message.find("not valid UTF-8"), std::string::npos)
        << resolved.error().message;
  }
  EXPECT_EQ(*resolve_user_path("/ok/\xc3\xa9", bad), "/ok/\xc3\xa9");
}

}  // namespace
}  // namespace orrery
