#include "core/shell_quote.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/text.h"
#include "support/utf8_text.h"

namespace orrery {
namespace {

// What bash (an interactive shell a command is pasted into) makes of `text`
// as the arguments of printf '%s\0'.
std::vector<std::string> words_bash_reads(const std::string& text) {
  const std::string script = "printf '%s\\0' " + text;
  std::string command = "/bin/bash -c ";
  command += shell_quote(script);
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {"<popen failed>"};
  std::string out;
  char buffer[4096];
  for (size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, got);
  ::pclose(pipe);
  std::vector<std::string> words;
  size_t start = 0;
  for (size_t end; (end = out.find('\0', start)) != std::string::npos; start = end + 1) {
    words.push_back(out.substr(start, end - start));
  }
  return words;
}

TEST(ShellQuote, PlainWordsStayAsTheyAreOthersAreSingleQuoted) {
  EXPECT_EQ(shell_quote("make"), "make");
  EXPECT_EQ(shell_quote("/usr/bin/env"), "/usr/bin/env");
  EXPECT_EQ(shell_quote("--retry=3,a:b@c%d+e"), "--retry=3,a:b@c%d+e");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_command({"sh", "-c", "echo 'hi there'"}), "sh -c 'echo '\\''hi there'\\'''");
  EXPECT_EQ(shell_command({"printf", "%s\\n", "a b", "it's"}), "printf '%s\\n' 'a b' 'it'\\''s'");
}

// Every printable ASCII character and the shell's special ones, alone, twice
// and inside a word, with spaces, quotes, newlines and UTF-8: sh reads back
// exactly the words quoted.
TEST(ShellQuote, TheShellReadsBackTheSameWords) {
  std::vector<std::string> words = {"",
                                    " ",
                                    "  ",
                                    "\t",
                                    "\n",
                                    "a\nb",
                                    "'",
                                    "''",
                                    "\"",
                                    "\\",
                                    "\\'",
                                    "$HOME",
                                    "${x}",
                                    "`id`",
                                    "$(id)",
                                    "*",
                                    "?",
                                    "~",
                                    "#c",
                                    "a b",
                                    "it's",
                                    "caf\xc3\xa9",
                                    "\xe2\x9c\x93 ok",
                                    "-n",
                                    "--",
                                    "a=b c",
                                    "!",
                                    "{a,b}",
                                    "[x]",
                                    ";",
                                    "&",
                                    "|",
                                    "<",
                                    ">"};
  for (char c = 0x21; c < 0x7f; ++c) {
    words.push_back(std::string(1, c));
    words.push_back(std::string(2, c));
    std::string inside = "a";  // appended: GCC 12 -O3 warns on "a" + a temporary
    inside += c;
    inside += 'b';
    words.push_back(inside);
  }
  // In batches: one shell for many words.
  for (size_t start = 0; start < words.size(); start += 40) {
    const std::vector<std::string> batch(words.begin() + long(start),
                                         words.begin() + long(std::min(words.size(), start + 40)));
    EXPECT_EQ(words_bash_reads(shell_command(batch)), batch) << shell_command(batch);
  }
}

// A word holding a control character (core/text.h) or a byte that is not
// UTF-8 is shown in ANSI-C quotes: nothing in the shown text is a control
// character, and the shell reads back the same bytes. Generated over every
// control character and invalid bytes, alone and between other text.
TEST(ShellQuote, AControlCharacterIsShownAsAnEscapeThatPastesBack) {
  std::vector<std::string> words;
  const auto add = [&](const std::string& part) {
    words.push_back(part);
    words.push_back(testing::between("a", part, "b"));
    words.push_back(testing::between("it's ", part, " C:\\work"));
  };
  for (int c = 1; c < 0x20; ++c) add(std::string(1, char(c)));
  add("\x7f");
  for (int c = 0x80; c <= 0x9f; ++c) add(std::string{char(0xc2), char(c)});
  for (const char* utf8 :
       {"\u2028", "\u2029", "\u200e", "\u200f", "\u202a", "\u202e", "\u2066", "\u2069"})
    add(utf8);
  for (const char* invalid : {"\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80"}) add(invalid);
  for (const std::string& word : words) {
    const std::string shown = shell_quote(word);
    EXPECT_EQ(shown.rfind("$'", 0), 0u) << shown;
    EXPECT_EQ(terminal_text(shown), shown) << "a control character is shown raw: " << shown;
  }
  for (size_t start = 0; start < words.size(); start += 40) {
    const std::vector<std::string> batch(words.begin() + long(start),
                                         words.begin() + long(std::min(words.size(), start + 40)));
    EXPECT_EQ(words_bash_reads(shell_command(batch)), batch) << shell_command(batch);
  }
  EXPECT_EQ(shell_quote("a\tb"), "$'a\\tb'");
  EXPECT_EQ(shell_quote("it's\n"), "$'it\\'s\\n'");
  EXPECT_EQ(shell_quote("C:\\x\x1b"), "$'C:\\\\x\\x1b'");
  EXPECT_EQ(shell_quote("\xc2\x85"), "$'\\xc2\\x85'");
  EXPECT_EQ(shell_quote("caf\xc3\xa9\t"), "$'caf\xc3\xa9\\t'");
}

}  // namespace
}  // namespace orrery
