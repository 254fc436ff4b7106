// Test helpers: texts made of a prefix and a number ("s12", "k3"), and the
// number a query's text reads as. Each is built by appending to the prefix:
// a string literal followed by a temporary string ("s" + std::to_string(i))
// inserts at the front of the temporary, which GCC 12 at -O3 reports as an
// overlapping copy (-Wrestrict), an error under -Werror.
#pragma once

#include <string>
#include <string_view>

namespace orrery::testing {

inline std::string numbered(std::string_view prefix, long long number) {
  std::string text(prefix);
  text += std::to_string(number);
  return text;
}

// The integer `text` reads as with a '0' in front: 0 for an empty text (a
// query that found no row).
inline int int_or_zero(std::string_view text) {
  std::string digits = "0";
  digits += text;
  return std::stoi(digits);
}

}  // namespace orrery::testing
