#include "core/page_cursor.h"

#include <charconv>

#include "core/ids.h"
#include "core/text.h"

namespace orrery {
namespace {

// The longest id a key holds: ids are kIdLength characters; a little room
// is left for ids of another length without letting a cursor grow unbounded.
constexpr size_t kMaxKeyIdLength = 64;

Error not_a_cursor(std::string_view text) {
  std::string message = "'";  // appended: GCC 12 -O3 -Wrestrict on "'" + a temporary
  message += visible(text);
  message += "' is not a cursor orrery gave: use the cursor of the page before";
  return usage_error(message);
}

}  // namespace

std::string cursor_text(const PageKey& key) {
  return std::to_string(key.created_at) + "." + key.id;
}

Result<PageKey> parse_cursor(std::string_view text) {
  const size_t dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0) return not_a_cursor(text);
  const std::string_view instant = text.substr(0, dot);
  const std::string_view id = text.substr(dot + 1);
  if (id.size() > kMaxKeyIdLength || !is_lower_hex(id)) return not_a_cursor(text);
  const bool digits_only = instant.find_first_not_of("0123456789") == std::string_view::npos;
  if (!digits_only || (instant.size() > 1 && instant.front() == '0')) return not_a_cursor(text);
  PageKey key;
  const auto [end, error] =
      std::from_chars(instant.data(), instant.data() + instant.size(), key.created_at);
  if (error != std::errc() || end != instant.data() + instant.size()) {
    return not_a_cursor(text);
  }
  key.id = std::string(id);
  return key;
}

}  // namespace orrery
