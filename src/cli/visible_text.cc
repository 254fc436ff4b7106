#include "cli/visible_text.h"

#include <cstdint>
#include <cstdio>

namespace orrery::cli {
namespace {

// The length of the valid UTF-8 sequence starting at text[at] and its code
// point, or 0 when the byte there does not start one.
std::size_t decode(std::string_view text, std::size_t at, char32_t* code_point) {
  const auto byte = [&](std::size_t i) { return std::uint8_t(text[i]); };
  const std::uint8_t lead = byte(at);
  std::size_t length = 0;
  char32_t value = 0;
  char32_t minimum = 0;
  if (lead < 0x80) {
    *code_point = lead;
    return 1;
  } else if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2, value = lead & 0x1f, minimum = 0x80;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3, value = lead & 0x0f, minimum = 0x800;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4, value = lead & 0x07, minimum = 0x10000;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xc0) != 0x80) return 0;
    value = (value << 6) | (byte(at + i) & 0x3f);
  }
  if (value < minimum || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return 0;
  *code_point = value;
  return length;
}

bool needs_escape(char32_t c) {
  return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || c == 0x2028 || c == 0x2029 ||
         c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

void append_escape(std::string& out, char32_t c) {
  char buffer[16];
  switch (c) {
    case '\n':
      out += "\\n";
      return;
    case '\t':
      out += "\\t";
      return;
    case '\r':
      out += "\\r";
      return;
  }
  if (c < 0x80) {
    std::snprintf(buffer, sizeof buffer, "\\x%02x", unsigned(c));
  } else {
    std::snprintf(buffer, sizeof buffer, "\\u{%04X}", unsigned(c));
  }
  out += buffer;
}

std::string escape(std::string_view text, bool keep_lines) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    char32_t c = 0;
    const std::size_t length = decode(text, at, &c);
    if (length == 0) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", unsigned(std::uint8_t(text[at])));
      out += buffer;
      ++at;
      continue;
    }
    if (needs_escape(c) && !(keep_lines && (c == '\n' || c == '\t'))) {
      append_escape(out, c);
    } else {
      out.append(text.substr(at, length));
    }
    at += length;
  }
  return out;
}

}  // namespace

std::string visible(std::string_view text) { return escape(text, false); }

std::string visible_lines(std::string_view text) { return escape(text, true); }

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (std::size_t at = 0; at < text.size(); ++width) {
    char32_t c = 0;
    const std::size_t length = decode(text, at, &c);
    at += length == 0 ? 1 : length;
  }
  return width;
}

}  // namespace orrery::cli
