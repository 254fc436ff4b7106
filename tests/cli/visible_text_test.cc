#include "cli/visible_text.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace orrery::cli {
namespace {

TEST(VisibleText, KeepsPrintableAsciiBackslashAndValidUtf8) {
  EXPECT_EQ(visible("nightly-review 42 ~!@#$%^&*()_+{}|:\"<>?"),
            "nightly-review 42 ~!@#$%^&*()_+{}|:\"<>?");
  EXPECT_EQ(visible("C:\\path\\x1b"), "C:\\path\\x1b");
  EXPECT_EQ(visible("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80"),
            "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80");
  EXPECT_EQ(visible(""), "");
}

TEST(VisibleText, EscapesNewlineTabCarriageReturnByName) {
  EXPECT_EQ(visible("a\nb\tc\rd"), "a\\nb\\tc\\rd");
}

TEST(VisibleText, EscapesEveryOtherC0ControlAndDelAsHex) {
  for (int c = 0; c < 0x20; ++c) {
    if (c == '\n' || c == '\t' || c == '\r') continue;
    char expected[8];
    std::snprintf(expected, sizeof expected, "\\x%02x", c);
    EXPECT_EQ(visible(std::string(1, char(c))), expected) << c;
  }
  EXPECT_EQ(visible("\x7f"), "\\x7f");
  // A terminal escape that would clear the screen and colour the rest red.
  EXPECT_EQ(visible("\x1b[2J\x1b[31mred"), "\\x1b[2J\\x1b[31mred");
}

TEST(VisibleText, EscapesC1ControlsSeparatorsAndBidiFormatting) {
  EXPECT_EQ(visible("\xc2\x80"), "\\u{0080}");
  EXPECT_EQ(visible("\xc2\x9b"
                    "31m"),
            "\\u{009B}31m");  // the 8-bit CSI
  EXPECT_EQ(visible("\xc2\x9f"), "\\u{009F}");
  EXPECT_EQ(visible("\xc2\xa0"), "\xc2\xa0");  // no-break space is printable
  EXPECT_EQ(visible("a\xe2\x80\xa8"
                    "b\xe2\x80\xa9"),
            "a\\u{2028}b\\u{2029}");
  EXPECT_EQ(visible("\xe2\x80\xae"
                    "evil"),
            "\\u{202E}evil");  // right-to-left override
  EXPECT_EQ(visible("\xe2\x81\xa6\xe2\x81\xa9\xe2\x80\x8e\xe2\x80\x8f"),
            "\\u{2066}\\u{2069}\\u{200E}\\u{200F}");
}

TEST(VisibleText, EscapesEachByteThatIsNotValidUtf8) {
  EXPECT_EQ(visible("a\xff"
                    "b"),
            "a\\xffb");
  EXPECT_EQ(visible("\x80"), "\\x80");                             // lone continuation
  EXPECT_EQ(visible("\xc0\x80"), "\\xc0\\x80");                    // overlong NUL
  EXPECT_EQ(visible("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");           // overlong '/'
  EXPECT_EQ(visible("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(visible("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // beyond U+10FFFF
  EXPECT_EQ(visible("\xe6\x97"), "\\xe6\\x97");                    // cut short at the end
  EXPECT_EQ(visible("\xe6\x97x"), "\\xe6\\x97x");                  // cut short before ASCII
}

TEST(VisibleText, LinesKeepNewlineAndTabButEscapeTheRest) {
  EXPECT_EQ(visible_lines("one\ntwo\tthree\n"), "one\ntwo\tthree\n");
  EXPECT_EQ(visible_lines("\x1b]0;title\x07\r\xff"), "\\x1b]0;title\\x07\\r\\xff");
}

TEST(VisibleText, DisplayWidthCountsCodePoints) {
  EXPECT_EQ(display_width(""), 0u);
  EXPECT_EQ(display_width("abc"), 3u);
  EXPECT_EQ(display_width("caf\xc3\xa9"), 4u);
  EXPECT_EQ(display_width("\xe6\x97\xa5\xe6\x9c\xac"), 2u);
  EXPECT_EQ(display_width("\xf0\x9f\x9a\x80!"), 2u);
  EXPECT_EQ(display_width("\xff\xfe"), 2u);  // invalid bytes count one each
}

}  // namespace
}  // namespace orrery::cli
