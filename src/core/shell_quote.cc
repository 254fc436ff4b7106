#include "core/shell_quote.h"

#include <cstdio>

#include "core/text.h"

namespace orrery {
namespace {

bool is_plain(char c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '@':
    case '%':
    case '+':
    case '=':
    case ':':
    case ',':
    case '.':
    case '/':
    case '_':
    case '-':
      return true;
    default:
      return false;
  }
}

bool is_printable(std::string_view word) {
  for (size_t pos = 0; pos < word.size();) {
    const size_t length = printable_length_at(word, pos);
    if (length == 0) return false;
    pos += length;
  }
  return true;
}

// One byte of a word in ANSI-C quotes that is not printed as it is.
std::string escaped_byte(unsigned char c) {
  switch (c) {
    case '\\':
      return "\\\\";
    case '\'':
      return "\\'";
    case '\n':
      return "\\n";
    case '\t':
      return "\\t";
    case '\r':
      return "\\r";
    default:
      break;
  }
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "\\x%02x", unsigned(c));
  return buffer;
}

// $'...': a control character, and a byte that is not UTF-8, written as an
// escape; every other character as it is.
std::string ansi_c_quote(std::string_view word) {
  std::string quoted = "$'";
  for (size_t pos = 0; pos < word.size();) {
    const size_t length = printable_length_at(word, pos);
    const unsigned char c = static_cast<unsigned char>(word[pos]);
    if (length == 0 || c == '\\' || c == '\'') {
      quoted += escaped_byte(c);
      ++pos;
    } else {
      quoted.append(word.substr(pos, length));
      pos += length;
    }
  }
  return quoted + "'";
}

}  // namespace

std::string shell_quote(std::string_view word) {
  bool plain = !word.empty();
  for (char c : word) plain = plain && is_plain(c);
  if (plain) return std::string(word);
  if (!is_printable(word)) return ansi_c_quote(word);
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string shell_command(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& word : argv) {
    if (!text.empty()) text += ' ';
    text += shell_quote(word);
  }
  return text;
}

}  // namespace orrery
