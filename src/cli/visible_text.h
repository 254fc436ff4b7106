// Text made safe for a terminal (docs/cli.md, "Escaping"): stored text comes
// from users and programs, so what human output prints must not move the
// cursor, run terminal escape sequences or break a table's lines.
//
// Escaped, each as a visible sequence:
// - C0 controls and DEL: \n, \t, \r, else \xHH (ESC is \x1b);
// - C1 controls (U+0080-U+009F), the line and paragraph separators
//   (U+2028, U+2029) and the bidirectional formatting characters (U+200E,
//   U+200F, U+202A-U+202E, U+2066-U+2069): \u{XXXX};
// - every byte that is not part of valid UTF-8: \xHH.
// Everything else (printable ASCII, backslash included, and valid UTF-8) is
// kept as it is.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace orrery::cli {

// One line: every character above escaped.
std::string visible(std::string_view text);

// Program output shown as lines: as visible(), but newline and tab are kept.
std::string visible_lines(std::string_view text);

// Columns the text takes in a table: its code points (an invalid byte counts
// as one).
std::size_t display_width(std::string_view text);

}  // namespace orrery::cli
