#include "core/text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace orrery {
namespace {

std::string name_error(const std::string& name) {
  auto checked = check_name(name, "loop name");
  EXPECT_FALSE(checked.ok()) << "should be refused: " << visible(name);
  return checked ? "" : checked.error().message;
}

TEST(Text, TrimRemovesAsciiWhiteSpaceAtBothEnds) {
  EXPECT_EQ(trim("  a b \t\r\n"), "a b");
  EXPECT_EQ(trim("\v\fx"), "x");
  EXPECT_EQ(trim(" \t "), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim("x"), "x");
}

TEST(Text, ValidUtf8IsAccepted) {
  for (const std::string& text :
       std::vector<std::string>{"", "plain", "caf\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac",
                                "\xf0\x9f\x9a\x80", "\xf4\x8f\xbf\xbf", "\xef\xbf\xbd"}) {
    EXPECT_TRUE(is_valid_utf8(text)) << visible(text);
  }
}

TEST(Text, InvalidUtf8IsFoundAtItsOffset) {
  const std::pair<std::string, size_t> cases[] = {
      {"\xff", 0},                  // never a UTF-8 byte
      {"ab\x80", 2},                // a lone continuation byte
      {"a\xc3", 1},                 // truncated sequence
      {"\xc0\xaf", 0},              // overlong '/'
      {"\xe0\x80\xaf", 0},          // overlong, three bytes
      {"\xed\xa0\x80", 0},          // a surrogate (U+D800)
      {"\xf4\x90\x80\x80", 0},      // above U+10FFFF
      {"ok\xe2\x82", 2},            // truncated at the end
      {"\xf8\x88\x80\x80\x80", 0},  // five-byte form
  };
  for (const auto& [text, offset] : cases) {
    EXPECT_EQ(invalid_utf8_offset(text), offset) << visible(text);
  }
}

TEST(Text, CountsCodePointsNotBytes) {
  EXPECT_EQ(count_code_points(""), 0u);
  EXPECT_EQ(count_code_points("abc"), 3u);
  EXPECT_EQ(count_code_points("caf\xc3\xa9"), 4u);
  EXPECT_EQ(count_code_points("\xf0\x9f\x9a\x80\xf0\x9f\x9a\x80"), 2u);
}

TEST(Text, VisibleEscapesControlsAndInvalidBytesAndCuts) {
  EXPECT_EQ(visible("a\nb\tc\x1b[31m"), "a\\nb\\tc\\x1b[31m");
  EXPECT_EQ(visible("x\xff"), "x\\xff");
  EXPECT_EQ(visible("\xc2\x85"), "\\u0085");  // C1 NEL
  EXPECT_EQ(visible("back\\slash"), "back\\\\slash");
  EXPECT_EQ(visible("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(visible(std::string(100, 'a')), std::string(60, 'a') + "...");
}

TEST(Text, CheckUtf8NamesTheField) {
  EXPECT_TRUE(check_utf8("fine", "--description").ok());
  EXPECT_EQ(check_utf8("bad\xff", "--description").error().message,
            "--description 'bad\\xff' is not valid UTF-8 (invalid byte at offset 3)");
}

TEST(Text, NamesOfOneToAHundredPrintableCharactersAreAccepted) {
  for (const std::string& name : std::vector<std::string>{
           "a", "nightly-build", "two words", "caf\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac",
           "\xf0\x9f\x9a\x80 launch", std::string(100, 'x'),
           // 100 two-byte characters: 200 bytes, still 100 characters.
           [] {
             std::string s;
             for (int i = 0; i < 100; ++i) s += "\xc3\xa9";
             return s;
           }()}) {
    EXPECT_TRUE(check_name(name, "loop name").ok()) << visible(name);
  }
}

TEST(Text, NamesBreakingARuleAreRefusedSayingWhich) {
  EXPECT_EQ(name_error(""), "loop name cannot be empty");
  EXPECT_EQ(name_error(std::string(101, 'x')),
            "loop name '" + std::string(60, 'x') +
                "...' is 101 characters long; at most 100 are allowed");
  EXPECT_NE(name_error(std::string(10'000, 'x')).find("is 10000 characters long"),
            std::string::npos);
  EXPECT_NE(name_error("a\xff").find("is not valid UTF-8"), std::string::npos);
  EXPECT_EQ(name_error("a\nb"),
            "loop name 'a\\nb' contains the control character \\n; names must be printable");
  for (const std::string& name : std::vector<std::string>{
           "tab\there", "esc\x1b[2J", "nul" + std::string(1, '\0'), "del\x7f", "c1\xc2\x9b",
           "line\xe2\x80\xa8sep", "bidi\xe2\x80\xaeoverride", "cr\r"}) {
    EXPECT_NE(name_error(name).find("contains the control character"), std::string::npos)
        << visible(name);
  }
  for (const std::string& name :
       std::vector<std::string>{" ", "  ", " lead", "trail ", "\xc2\xa0nbsp", "ideo\xe3\x80\x80"}) {
    EXPECT_NE(name_error(name).find("starts or ends with white space"), std::string::npos)
        << visible(name);
  }
}

}  // namespace
}  // namespace orrery
