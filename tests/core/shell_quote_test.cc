#include "core/shell_quote.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <vector>

namespace orrery {
namespace {

// What /bin/sh makes of `text` as the arguments of printf '%s\0'.
std::vector<std::string> words_sh_reads(const std::string& text) {
  const std::string script = "printf '%s\\0' " + text;
  std::string command = "/bin/sh -c ";
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
TEST(ShellQuote, ShReadsBackTheSameWords) {
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
    EXPECT_EQ(words_sh_reads(shell_command(batch)), batch) << shell_command(batch);
  }
}

}  // namespace
}  // namespace orrery
