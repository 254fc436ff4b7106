// Text rules for what users give orrery (docs/cli.md, "Names and text").
//
// Stored text is valid UTF-8: shortest-form sequences of code points up to
// U+10FFFF, no surrogates. A loop name is, in addition, 1 to
// kMaxNameCharacters code points, printable (no C0 or C1 control, DEL, line
// or paragraph separator, or bidirectional control), without invisible
// (Unicode default-ignorable) characters, and without leading or
// trailing white space. Pure functions; errors name the field.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/result.h"

namespace orrery {

// Without leading and trailing ASCII white space (space, \t, \r, \n, \v, \f).
std::string_view trim(std::string_view text);

// The offset of the first byte that is not part of valid UTF-8, or npos.
size_t invalid_utf8_offset(std::string_view text);
inline bool is_valid_utf8(std::string_view text) {
  return invalid_utf8_offset(text) == std::string_view::npos;
}

// Program output made fit to store (docs/storage.md, "Stored text"): every
// byte that is not part of valid UTF-8, and every NUL (which PostgreSQL text
// cannot hold), becomes U+FFFD; everything else is kept.
std::string storable_text(std::string_view text);

// `position` moved back to the start of the character it falls in: past at
// most three UTF-8 continuation bytes (a cut there splits no character).
size_t character_start_at(std::string_view text, size_t position);

// The number of code points of valid UTF-8 text.
size_t count_code_points(std::string_view text);

// The text with control characters, invisible (default-ignorable) characters,
// invalid bytes and backslashes written as
// escapes (\n, \t, \x1b, \u{0085}), cut after 60 code points: safe to put in a
// message.
std::string visible(std::string_view text);

// Stored text made safe for a terminal (docs/cli.md, "Escaping"): it must not
// move the cursor, run escape sequences or break a table's lines. C0 controls
// and DEL become \n, \t, \r or \xHH (ESC is \x1b); C1 controls, the line and
// paragraph separators and the bidirectional formatting characters become
// \u{XXXX}; a byte that is not part of valid UTF-8 becomes \xHH. Everything
// else, the backslash included, is kept.
std::string terminal_text(std::string_view text);
// Program output shown as lines: as terminal_text, but newline and tab are kept.
std::string terminal_lines(std::string_view text);
// Columns the text takes in a table: its code points (an invalid byte counts
// as one).
size_t display_width(std::string_view text);

// A JSON string literal of the text: quoted, escaped, made valid UTF-8
// (storable_text).
std::string json_quote(std::string_view text);

// At most `code_points` code points of the text, cut at a code point
// boundary, with "…" appended when something was cut.
std::string shortened(std::string_view text, size_t code_points);

// Valid UTF-8, else a usage error naming `field`.
Status check_utf8(std::string_view text, std::string_view field);

// Whether a field's text may span lines: an objective, a description or a
// reason may (newline and tab are text there); a name may not.
enum class TextLines { kOne, kMany };

// The one rule for text a user gives orrery (docs/cli.md, "Names and
// text"): valid UTF-8 without a control character — C0 and DEL, C1
// (U+0080-U+009F), the line and paragraph separators (U+2028, U+2029), the
// bidirectional controls (U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) —
// but newline and tab in a field of many lines. The error names the field,
// the character and what is accepted. Names add their own rules
// (check_name, which applies this one).
Status check_user_text(std::string_view text, std::string_view field, TextLines lines);

// The length in bytes of the character at text[pos] when it is valid UTF-8
// and not a control character of the rule above; 0 otherwise.
size_t printable_length_at(std::string_view text, size_t pos);

// Whether `name` can name an environment variable: [A-Za-z_][A-Za-z0-9_]*.
bool is_env_name(std::string_view name);

// The rules for a loop name; `field` names where it came from (e.g. "loop name").
Status check_name(std::string_view name, std::string_view field);
// The same rules with another length limit (work item keys).
Status check_name(std::string_view name, std::string_view field, size_t max_characters);

}  // namespace orrery
