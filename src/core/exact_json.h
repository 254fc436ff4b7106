// orrery's one JSON reader and writer. Every JSON text orrery reads — a
// user's --input, --scope or enqueue object, an agent's update, a stored
// document — goes through read_json, and every JSON text it writes through
// write_json (the test `one_json_reader` refuses any other use of the
// library's parse or dump in src/).
//
// Invariant: a number is kept exactly as given. A number whose text a double
// would not reproduce (a 24-digit account id, 2.50, 1E5) is kept as its
// text — inside the value as a kept number — and written back as that text,
// so reading and writing never round, convert or reformat what a user gave.
// Every other number is an ordinary JSON number. A number beyond a double's
// range (1e400) is not read: the text is refused, as the library refuses it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace orrery {

// The value of `text`, or a discarded value (is_discarded()) when it is not
// one JSON text.
nlohmann::json read_json(std::string_view text);

// The JSON text of `value`: compact with indent -1, else pretty with that
// many spaces; invalid UTF-8 in strings replaced by U+FFFD; kept numbers
// written as the text they were given as.
std::string write_json(const nlohmann::json& value, int indent = -1);

// The same for a document whose object keys keep their order.
nlohmann::ordered_json read_ordered_json(std::string_view text);
std::string write_json(const nlohmann::ordered_json& value, int indent = -1);

// A kept number (a number read_json could not hold as a double exactly).
bool is_kept_number(const nlohmann::json& value);
// The text of a kept number; empty for any other value.
std::string kept_number_text(const nlohmann::json& value);
// Whether `text` is one JSON number (RFC 8259: -?int frac? exp?).
bool is_json_number_text(std::string_view text);
// The number `value` read from the JSON number `text`: `value` itself when it
// writes back as `text`, else a kept number of `text`.
nlohmann::json exact_number(double value, std::string_view text);

// Whether `text` is a whole number's digits, perhaps after a '-' (the text
// of a kept number too large for 64 bits).
bool is_whole_number_text(std::string_view text);

// "number" for any number, kept or not; otherwise the library's type name.
std::string json_type_name(const nlohmann::json& value);

// `value` with every kept number replaced by a string of its text: for
// consumers that only know plain JSON values (templates), where a number's
// text is what is shown.
nlohmann::json with_kept_numbers_as_text(nlohmann::json value);

}  // namespace orrery
