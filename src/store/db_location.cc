#include "store/db_location.h"

#include <cctype>

namespace orrery {
namespace {

constexpr const char* kAccepted =
    "give a file path (a name with a colon as ./NAME) or sqlite://PATH";

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

// "name:" at the start, as a URI scheme begins (RFC 3986: a letter, then
// letters, digits, '+', '-', '.').
std::string scheme_of(const std::string& text) {
  if (text.empty() || !std::isalpha(static_cast<unsigned char>(text[0]))) return "";
  for (size_t i = 1; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == ':') return text.substr(0, i);
    if (!std::isalnum(c) && c != '+' && c != '-' && c != '.') return "";
  }
  return "";
}

Result<std::string> checked_path(const std::string& given, const std::string& path) {
  if (path.empty()) return usage_error("--db '" + given + "' names no file; " + kAccepted);
  if (path.front() == ':') {
    return usage_error("--db '" + given + "': special SQLite names such as :memory: are not " +
                       "accepted (the data would be lost at exit); " + kAccepted);
  }
  if (const std::string scheme = scheme_of(path); !scheme.empty()) {
    return usage_error("--db '" + given + "': " + scheme + ": is not a database orrery can use; " +
                       kAccepted);
  }
  if (path.back() == '/' || path == "." || path == ".." ||
      (path.size() >= 2 && path.compare(path.size() - 2, 2, "/.") == 0) ||
      (path.size() >= 3 && path.compare(path.size() - 3, 3, "/..") == 0)) {
    return usage_error("--db '" + given + "' names a directory, not a database file; " + kAccepted);
  }
  return path;
}

}  // namespace

Result<std::string> sqlite_path_of(const std::string& text) {
  if (starts_with(text, "postgres://") || starts_with(text, "postgresql://")) {
    return usage_error("--db " + text +
                       ": PostgreSQL is not available in this version of orrery "
                       "yet; use the default SQLite store");
  }
  if (starts_with(text, "sqlite://")) return checked_path(text, text.substr(9));
  return checked_path(text, text);
}

}  // namespace orrery
