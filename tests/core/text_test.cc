#include "core/text.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "support/utf8_text.h"

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

TEST(Text, StorableTextReplacesInvalidBytesAndNulsAndKeepsTheRest) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(storable_text("plain \xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80\n"),
            "plain \xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80\n");
  EXPECT_EQ(storable_text(std::string("a\0b", 3)), "a" + fffd + "b");
  EXPECT_EQ(storable_text("\xFF\xFE"), fffd + fffd);
  EXPECT_EQ(storable_text("cut \xE2\x82"), "cut " + fffd + fffd);  // a sequence cut short
  EXPECT_EQ(storable_text("\xED\xA0\x80"), fffd + fffd + fffd);    // a surrogate
  EXPECT_EQ(storable_text(""), "");
  for (const std::string& input : {std::string("\x80x\0\xC0\xAF", 6), std::string(1000, '\xFF')}) {
    const std::string stored = storable_text(input);
    EXPECT_TRUE(is_valid_utf8(stored));
    EXPECT_EQ(stored.find('\0'), std::string::npos);
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
  EXPECT_EQ(visible("\xc2\x85"), "\\u{0085}");  // C1 NEL
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

// "z", the character, "w": appended (GCC 12 -O3 warns on "z" + a temporary).
std::string between_z_and_w(char32_t c);

using testing::utf8;

// Default_Ignorable_Code_Point as Unicode 15 lists it (DerivedCoreProperties.txt),
// written out here apart from the code under test.
std::string between_z_and_w(char32_t c) {
  std::string text = "z";
  text += utf8(c);
  text += 'w';
  return text;
}

struct IgnorableRange {
  char32_t first, last;
};
const IgnorableRange kDefaultIgnorable[] = {
    {0x00AD, 0x00AD},   {0x034F, 0x034F},   {0x061C, 0x061C},   {0x115F, 0x1160},
    {0x17B4, 0x17B5},   {0x180B, 0x180D},   {0x180E, 0x180E},   {0x180F, 0x180F},
    {0x200B, 0x200F},   {0x202A, 0x202E},   {0x2060, 0x2064},   {0x2065, 0x2065},
    {0x2066, 0x206F},   {0x3164, 0x3164},   {0xFE00, 0xFE0F},   {0xFEFF, 0xFEFF},
    {0xFFA0, 0xFFA0},   {0xFFF0, 0xFFF8},   {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A},
    {0xE0000, 0xE0000}, {0xE0001, 0xE0001}, {0xE0002, 0xE001F}, {0xE0020, 0xE007F},
    {0xE0080, 0xE00FF}, {0xE0100, 0xE01EF}, {0xE01F0, 0xE0FFF}};

TEST(Text, NamesWithAnInvisibleCharacterAreRefusedNamingIt) {
  for (const IgnorableRange& range : kDefaultIgnorable) {
    for (char32_t c = range.first;; ++c) {
      const std::string name = between_z_and_w(c);
      const std::string error = name_error(name);
      // Bidirectional controls among them keep their older message.
      const bool refused = error.find("contains the invisible character") != std::string::npos ||
                           error.find("contains the control character") != std::string::npos;
      EXPECT_TRUE(refused) << std::hex << unsigned(c) << ": " << error;
      EXPECT_EQ(error.find(utf8(c)), std::string::npos) << "shown raw: " << std::hex << unsigned(c);
      if (c == range.last) break;
    }
  }
  EXPECT_EQ(name_error(between_z_and_w(0x200B)),
            "loop name 'z\\u{200B}w' contains the invisible character U+200B; names may hold "
            "only characters that show");
  // Their neighbours that show are names.
  for (char32_t c :
       {char32_t(0x00AC), char32_t(0x00AE), char32_t(0x034E), char32_t(0x0350), char32_t(0x115E),
        char32_t(0x1161), char32_t(0x3163), char32_t(0x3165), char32_t(0xFDFF), char32_t(0xFE10),
        char32_t(0xFFA1), char32_t(0x1D172), char32_t(0x1D17B), char32_t(0x1F600)}) {
    EXPECT_TRUE(check_name(between_z_and_w(c), "loop name").ok()) << std::hex << unsigned(c);
  }
}

// Escaping for the terminal: stored text as human output shows it.
TEST(TerminalText, KeepsPrintableAsciiBackslashAndValidUtf8) {
  EXPECT_EQ(terminal_text("nightly-review 42 ~!@#$%^&*()_+{}|:\"<>?"),
            "nightly-review 42 ~!@#$%^&*()_+{}|:\"<>?");
  EXPECT_EQ(terminal_text("C:\\path\\x1b"), "C:\\path\\x1b");
  EXPECT_EQ(terminal_text("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80"),
            "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80");
  EXPECT_EQ(terminal_text(""), "");
}

TEST(TerminalText, EscapesNewlineTabCarriageReturnByName) {
  EXPECT_EQ(terminal_text("a\nb\tc\rd"), "a\\nb\\tc\\rd");
}

TEST(TerminalText, EscapesEveryOtherC0ControlAndDelAsHex) {
  for (int c = 0; c < 0x20; ++c) {
    if (c == '\n' || c == '\t' || c == '\r') continue;
    char expected[8];
    std::snprintf(expected, sizeof expected, "\\x%02x", c);
    EXPECT_EQ(terminal_text(std::string(1, char(c))), expected) << c;
  }
  EXPECT_EQ(terminal_text("\x7f"), "\\x7f");
  // A terminal escape that would clear the screen and colour the rest red.
  EXPECT_EQ(terminal_text("\x1b[2J\x1b[31mred"), "\\x1b[2J\\x1b[31mred");
}

TEST(TerminalText, EscapesC1ControlsSeparatorsAndBidiFormatting) {
  EXPECT_EQ(terminal_text("\xc2\x80"), "\\u{0080}");
  EXPECT_EQ(terminal_text("\xc2\x9b"
                          "31m"),
            "\\u{009B}31m");  // the 8-bit CSI
  EXPECT_EQ(terminal_text("\xc2\x9f"), "\\u{009F}");
  EXPECT_EQ(terminal_text("\xc2\xa0"), "\xc2\xa0");  // no-break space is printable
  EXPECT_EQ(terminal_text("a\xe2\x80\xa8"
                          "b\xe2\x80\xa9"),
            "a\\u{2028}b\\u{2029}");
  EXPECT_EQ(terminal_text("\xe2\x80\xae"
                          "evil"),
            "\\u{202E}evil");  // right-to-left override
  EXPECT_EQ(terminal_text("\xe2\x81\xa6\xe2\x81\xa9\xe2\x80\x8e\xe2\x80\x8f"),
            "\\u{2066}\\u{2069}\\u{200E}\\u{200F}");
}

TEST(TerminalText, EscapesEachByteThatIsNotValidUtf8) {
  EXPECT_EQ(terminal_text("a\xff"
                          "b"),
            "a\\xffb");
  EXPECT_EQ(terminal_text("\x80"), "\\x80");                             // lone continuation
  EXPECT_EQ(terminal_text("\xc0\x80"), "\\xc0\\x80");                    // overlong NUL
  EXPECT_EQ(terminal_text("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");           // overlong '/'
  EXPECT_EQ(terminal_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(terminal_text("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // beyond U+10FFFF
  EXPECT_EQ(terminal_text("\xe6\x97"), "\\xe6\\x97");                    // cut short at the end
  EXPECT_EQ(terminal_text("\xe6\x97x"), "\\xe6\\x97x");                  // cut short before ASCII
}

TEST(TerminalText, LinesKeepNewlineAndTabButEscapeTheRest) {
  EXPECT_EQ(terminal_lines("one\ntwo\tthree\n"), "one\ntwo\tthree\n");
  EXPECT_EQ(terminal_lines("\x1b]0;title\x07\r\xff"), "\\x1b]0;title\\x07\\r\\xff");
}

TEST(TerminalText, DisplayWidthCountsCodePoints) {
  EXPECT_EQ(display_width(""), 0u);
  EXPECT_EQ(display_width("abc"), 3u);
  EXPECT_EQ(display_width("caf\xc3\xa9"), 4u);
  EXPECT_EQ(display_width("\xe6\x97\xa5\xe6\x9c\xac"), 2u);
  EXPECT_EQ(display_width("\xf0\x9f\x9a\x80!"), 2u);
  EXPECT_EQ(display_width("\xff\xfe"), 2u);  // invalid bytes count one each
}

}  // namespace
}  // namespace orrery

namespace orrery {
namespace {

TEST(Shortened, CutsAtCodePointBoundariesAndMarksTheCut) {
  EXPECT_EQ(shortened("abc", 3), "abc");
  EXPECT_EQ(shortened("abcd", 3), "abc\u2026");
  EXPECT_EQ(shortened("", 0), "");
  // One code point of each width: nothing is cut inside one.
  const std::string mixed = "a\u00e9\u20ac\U0001F600z";
  for (size_t n = 0; n <= 5; ++n) {
    const std::string cut = shortened(mixed, n);
    EXPECT_TRUE(is_valid_utf8(cut)) << n;
    EXPECT_EQ(count_code_points(cut), n == 5 ? 5 : n + 1) << n;  // the ellipsis counts one
  }
}

TEST(Text, ACutMovedToACharacterStartSplitsNoCharacter) {
  // One, two, three and four byte characters, cut at every position.
  const std::string text = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z";
  for (size_t position = 0; position <= text.size() + 2; ++position) {
    const size_t start = character_start_at(text, position);
    ASSERT_LE(start, std::min(position, text.size()));
    EXPECT_TRUE(is_valid_utf8(text.substr(0, start))) << position;
    EXPECT_TRUE(is_valid_utf8(text.substr(start))) << position;
  }
  EXPECT_EQ(character_start_at(text, 2), 1u);
  EXPECT_EQ(character_start_at(text, 5), 3u);
  EXPECT_EQ(character_start_at(text, 9), 6u);
  EXPECT_EQ(character_start_at("", 4), 0u);
}

}  // namespace
}  // namespace orrery
