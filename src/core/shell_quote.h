// Words shown as a POSIX shell would read them (docs/cli.md, "Targets as
// shown"): pasting the text into sh gives back the same argv.
//
// A word of only the characters a shell never treats specially
// (A-Z a-z 0-9 and @ % + = : , . / _ -) is shown as it is; a word holding a
// control character (core/text.h) or a byte that is not UTF-8 is put in
// ANSI-C quotes, $'...', those written as escapes (\n, \t, \r, \xHH per
// byte) and \ and ' as \\ and \', so that the terminal shows no control
// character and the text pastes back; any other word, the empty word
// included, is put in single quotes, each ' in it written '\''. Pure
// functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace orrery {

std::string shell_quote(std::string_view word);

// The words quoted and joined by single spaces.
std::string shell_command(const std::vector<std::string>& argv);

}  // namespace orrery
