#include "core/text.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <utility>

#include "core/limits.h"

namespace orrery {
namespace {

constexpr size_t kVisibleCodePoints = 60;

// One decoded code point and its length in bytes; length 0 means invalid.
struct Decoded {
  char32_t code_point = 0;
  size_t length = 0;
};

bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// The code point starting at text[pos], strictly: no overlong forms, no
// surrogates, nothing above U+10FFFF.
Decoded decode_at(std::string_view text, size_t pos) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[pos + i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return {lead, 1};
  size_t length = 0;
  char32_t value = 0;
  char32_t minimum = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, value = lead & 0x1F, minimum = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, value = lead & 0x0F, minimum = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, value = lead & 0x07, minimum = 0x10000;
  } else {
    return {};
  }
  if (pos + length > text.size()) return {};
  for (size_t i = 1; i < length; ++i) {
    if (!is_continuation(byte(i))) return {};
    value = (value << 6) | (byte(i) & 0x3F);
  }
  if (value < minimum || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return {};
  return {value, length};
}

bool is_control(char32_t c) {
  return c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F) || c == 0x2028 || c == 0x2029 ||
         c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

// Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode
// 15): characters that show nothing (zero-width spaces and joiners, word
// joiner, BOM, variation selectors, fillers, tags), so that two names that
// differ only by them look the same.
bool is_default_ignorable(char32_t c) {
  struct Range {
    char32_t first, last;
  };
  static constexpr Range kRanges[] = {
      {0x00AD, 0x00AD},   {0x034F, 0x034F},  {0x061C, 0x061C}, {0x115F, 0x1160}, {0x17B4, 0x17B5},
      {0x180B, 0x180F},   {0x200B, 0x200F},  {0x202A, 0x202E}, {0x2060, 0x206F}, {0x3164, 0x3164},
      {0xFE00, 0xFE0F},   {0xFEFF, 0xFEFF},  {0xFFA0, 0xFFA0}, {0xFFF0, 0xFFF8}, {0x1BCA0, 0x1BCA3},
      {0x1D173, 0x1D17A}, {0xE0000, 0xE0FFF}};
  for (const Range& range : kRanges) {
    if (c >= range.first && c <= range.last) return true;
  }
  return false;
}

// Unicode White_Space that is not a control character.
bool is_space(char32_t c) {
  return c == ' ' || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

// "U+200B".
std::string unicode_name(char32_t c) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "U+%04X", unsigned(c));
  return buffer;
}

std::string escape(char32_t c) {
  switch (c) {
    case '\n':
      return "\\n";
    case '\t':
      return "\\t";
    case '\r':
      return "\\r";
    case '\\':
      return "\\\\";
    default:
      break;
  }
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, c < 0x80 ? "\\x%02x" : "\\u{%04X}", unsigned(c));
  return buffer;
}

std::string escape_byte(unsigned char byte) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "\\x%02x", unsigned(byte));
  return buffer;
}

// The first and last code points of valid UTF-8 text.
char32_t first_code_point(std::string_view text) { return decode_at(text, 0).code_point; }
char32_t last_code_point(std::string_view text) {
  size_t pos = text.size() - 1;
  while (pos > 0 && is_continuation(static_cast<unsigned char>(text[pos]))) --pos;
  return decode_at(text, pos).code_point;
}

// Control characters and invalid bytes as escapes; the backslash too when
// `escape_backslash`, invisible characters when `escape_invisible`; newline and tab kept when
// `keep_lines`; at most `max_code_points` shown (0: all), then "...".
struct EscapeRules {
  bool escape_backslash = false;
  bool escape_invisible = false;  // default-ignorable code points too
  bool keep_lines = false;
  size_t max_code_points = 0;
};

std::string escape_text(std::string_view text, const EscapeRules& rules) {
  std::string out;
  out.reserve(text.size());
  size_t shown = 0;
  for (size_t pos = 0; pos < text.size(); ++shown) {
    if (rules.max_code_points != 0 && shown == rules.max_code_points) return out + "...";
    const Decoded decoded = decode_at(text, pos);
    if (decoded.length == 0) {
      out += escape_byte(static_cast<unsigned char>(text[pos]));
      ++pos;
      continue;
    }
    const char32_t c = decoded.code_point;
    const bool kept_line = rules.keep_lines && (c == '\n' || c == '\t');
    if ((is_control(c) && !kept_line) || (rules.escape_backslash && c == '\\') ||
        (rules.escape_invisible && is_default_ignorable(c))) {
      out += escape(c);
    } else {
      out += text.substr(pos, decoded.length);
    }
    pos += decoded.length;
  }
  return out;
}

}  // namespace

std::string_view trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  const size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

size_t invalid_utf8_offset(std::string_view text) {
  for (size_t pos = 0; pos < text.size();) {
    const Decoded decoded = decode_at(text, pos);
    if (decoded.length == 0) return pos;
    pos += decoded.length;
  }
  return std::string_view::npos;
}

std::string storable_text(std::string_view text) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
  std::string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    const Decoded decoded = decode_at(text, pos);
    if (decoded.length == 0 || text[pos] == '\0') {
      out.append(kReplacement);
      ++pos;
      continue;
    }
    out.append(text.substr(pos, decoded.length));
    pos += decoded.length;
  }
  return out;
}

size_t character_start_at(std::string_view text, size_t position) {
  position = std::min(position, text.size());
  for (int step = 0; step < 3 && position > 0 && position < text.size(); ++step) {
    if ((static_cast<unsigned char>(text[position]) & 0xC0) != 0x80) break;
    --position;
  }
  return position;
}

size_t count_code_points(std::string_view text) {
  size_t count = 0;
  for (char c : text) count += is_continuation(static_cast<unsigned char>(c)) ? 0 : 1;
  return count;
}

std::string visible(std::string_view text) {
  return escape_text(
      text,
      {.escape_backslash = true, .escape_invisible = true, .max_code_points = kVisibleCodePoints});
}

std::string terminal_text(std::string_view text) { return escape_text(text, {}); }

std::string terminal_lines(std::string_view text) {
  return escape_text(text, {.keep_lines = true});
}

size_t display_width(std::string_view text) {
  size_t width = 0;
  for (size_t pos = 0; pos < text.size(); ++width) {
    pos += std::max<size_t>(decode_at(text, pos).length, 1);
  }
  return width;
}

Status check_utf8(std::string_view text, std::string_view field) {
  const size_t offset = invalid_utf8_offset(text);
  if (offset == std::string_view::npos) return Ok{};
  return usage_error(std::string(field) + " '" + visible(text) +
                     "' is not valid UTF-8 (invalid byte at offset " + std::to_string(offset) +
                     ")");
}

bool is_env_name(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (const char c : name) {
    if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
      return false;
    }
  }
  return true;
}

namespace {

// The first control character that the field does not take as text, and
// its offset; npos when there is none (invalid bytes are passed over).
std::pair<size_t, char32_t> first_control(std::string_view text, TextLines lines) {
  for (size_t pos = 0; pos < text.size();) {
    const Decoded decoded = decode_at(text, pos);
    const char32_t c = decoded.code_point;
    const bool line_text = lines == TextLines::kMany && (c == '\n' || c == '\t');
    if (decoded.length != 0 && is_control(c) && !line_text) return {pos, c};
    pos += std::max<size_t>(decoded.length, 1);  // an invalid byte is check_utf8's
  }
  return {std::string_view::npos, 0};
}

}  // namespace

size_t printable_length_at(std::string_view text, size_t pos) {
  if (pos >= text.size()) return 0;
  const Decoded decoded = decode_at(text, pos);
  return is_control(decoded.code_point) ? 0 : decoded.length;
}

Status check_user_text(std::string_view text, std::string_view field, TextLines lines) {
  if (auto valid = check_utf8(text, field); !valid) return valid;
  const auto [at, control] = first_control(text, lines);
  if (at == std::string_view::npos) return Ok{};
  return usage_error(std::string(field) + " contains the control character " + escape(control) +
                     (lines == TextLines::kMany ? "; text, newlines and tabs are accepted"
                                                : "; text on one line is accepted"));
}

Status check_name(std::string_view name, std::string_view field) {
  return check_name(name, field, size_t(kMaxNameCharacters));
}

Status check_name(std::string_view name, std::string_view field, size_t max_characters) {
  const std::string what(field);
  if (name.empty()) return usage_error(what + " cannot be empty");
  if (auto valid = check_utf8(name, field); !valid) return valid;
  const size_t characters = count_code_points(name);
  if (characters > max_characters) {
    return usage_error(what + " '" + visible(name) + "' is " + std::to_string(characters) +
                       " characters long; at most " + std::to_string(max_characters) +
                       " are allowed");
  }
  if (const auto [at, control] = first_control(name, TextLines::kOne);
      at != std::string_view::npos) {
    return usage_error(what + " '" + visible(name) + "' contains the control character " +
                       escape(control) + "; names must be printable");
  }
  for (size_t pos = 0; pos < name.size();) {
    const Decoded decoded = decode_at(name, pos);
    if (is_default_ignorable(decoded.code_point)) {
      return usage_error(what + " '" + visible(name) + "' contains the invisible character " +
                         unicode_name(decoded.code_point) +
                         "; names may hold only characters that show");
    }
    pos += decoded.length;
  }
  if (is_space(first_code_point(name)) || is_space(last_code_point(name))) {
    return usage_error(what + " '" + visible(name) +
                       "' starts or ends with white space; remove it");
  }
  return Ok{};
}

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  for (const char c : storable_text(text)) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escape[8];
          std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(c));
          out += escape;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string shortened(std::string_view text, size_t code_points) {
  size_t at = 0;
  for (size_t counted = 0; at < text.size() && counted < code_points; ++counted) {
    ++at;
    while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) ++at;
  }
  if (at >= text.size()) return std::string(text);
  return std::string(text.substr(0, at)) + "\u2026";
}

}  // namespace orrery
