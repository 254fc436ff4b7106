// Text for tests of the text rules: a code point as UTF-8, and a character
// between two others, built by appending (GCC 12 -O3 warns on "a" + a
// temporary).
#pragma once

#include <string>
#include <string_view>

namespace orrery::testing {

inline std::string utf8(char32_t c) {
  std::string out;
  if (c < 0x80) {
    out += char(c);
  } else if (c < 0x800) {
    out += char(0xC0 | (c >> 6));
    out += char(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += char(0xE0 | (c >> 12));
    out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
  } else {
    out += char(0xF0 | (c >> 18));
    out += char(0x80 | ((c >> 12) & 0x3F));
    out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
  }
  return out;
}

inline std::string between(std::string_view before, std::string_view middle,
                           std::string_view after) {
  std::string text(before);
  text += middle;
  text += after;
  return text;
}

}  // namespace orrery::testing
